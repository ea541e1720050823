package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"sandview/client"
	"sandview/tui/service"
	"sandview/tui/ui"
)

// Settings are the TUI's settings (see ui.Settings).
type Settings = ui.Settings

// Keystore keeps the inboxes the TUI creates or imports (see
// service.Keystore).
type Keystore = service.Keystore

// Config is what the command line passes to the TUI.
type Config struct {
	Client   *client.Client // connected client; inboxes already loaded into it
	Keystore Keystore       // created/imported inboxes are saved here, deleted ones removed (may be nil)
	// Settings are shared by the root model and the screens (nil: the
	// defaults).
	Settings *Settings
	// Startup is work to run once the UI is up (the --local demo mail);
	// its error is shown in the status bar.
	Startup func(ctx context.Context) error
	// Notices are one-line messages from outside the client (the local
	// server's SMTP refusals): each shows in the status bar and the log.
	Notices <-chan string

	// For tests: a service in place of Client, and what schedules timer
	// messages (tea.Tick; tests switch timers off).
	svc  service.Service
	tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
}

// Run runs the TUI in the terminal (alternate screen, mouse) until the user
// quits or ctx ends; the terminal is restored on return.
func Run(ctx context.Context, cfg Config, opts ...tea.ProgramOption) error {
	return run(ctx, cfg, nil, opts...)
}

// run runs the program; started, when not nil, is given the program before
// it runs (to send it messages from outside, such as a remote terminal's
// window changes).
func run(ctx context.Context, cfg Config, started func(*tea.Program), opts ...tea.ProgramOption) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	base := []tea.ProgramOption{tea.WithContext(ctx)}
	app := newApp(ctx, cfg)
	if app.set.NoColor {
		base = append(base, tea.WithColorProfile(colorprofile.Ascii))
	}
	p := tea.NewProgram(app, append(base, opts...)...)
	if started != nil {
		started(p)
	}
	_, err := p.Run()
	if err != nil && !(errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil) {
		err = fmt.Errorf("run the terminal UI: %w", err)
	} else {
		err = nil
	}
	// The built-in receiver's webhooks go with it; the program's context
	// has ended, so the requests get a short one of their own.
	closeCtx, cancelClose := context.WithTimeout(context.Background(), closeTimeout)
	defer cancelClose()
	return errors.Join(err, app.hooks.Close(closeCtx), app.mail.Close())
}

// closeTimeout bounds the clean-up requests when the program ends.
const closeTimeout = 5 * time.Second

// ClientOptions are the delivery options the TUI wants of its client:
// reconnects that start at one second and never wait more than thirty,
// jittered, instead of the contract's five seconds doubling without a cap
// (which a library keeps). Pass them to client.New.
func ClientOptions() []client.Option {
	return []client.Option{
		client.WithSSE(time.Second, client.DefaultSSEMaxReconnectAttempts, client.DefaultSSEConnectionTimeout),
		client.WithSSEBackoff(30*time.Second, 0.3),
	}
}

// NoServerScreen is what sandview prints when no server is configured.
func NoServerScreen() string {
	return `sandview: no server is configured.

To use an email sandbox service, save its address and your API key once:

    sandview config --url https://sandbox.example.com --api-key YOUR-API-KEY

(or pass --url/--api-key, or set SERVICE_URL and SERVICE_API_KEY). The config
file is config.json in sandview's home ($SANDVIEW_HOME, else
$XDG_CONFIG_HOME/sandview, else ~/.config/sandview), mode 0600.

Or try it without any service, on a built-in local server:

    sandview --local           a local sandbox: send it mail over SMTP
    sandview --local --demo    the same, with a few sample emails delivered
`
}
