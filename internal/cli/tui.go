package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/server"
	"sandview/server/webhook"
	"sandview/tui"
	"sandview/tui/desktop"
)

// localOptions are the root command's own flags (the TUI's, and those of
// `sandview --local`, which takes the server settings marked local).
type localOptions struct {
	demo   bool
	theme  string
	server serverSettings
	flags  *pflag.FlagSet // nil: not registered, the defaults
}

func (l *localOptions) register(root *cobra.Command) {
	f := root.Flags()
	l.flags = f
	f.BoolVar(&l.demo, "demo", false, "with --local: deliver a handful of varied demo mails")
	f.StringVar(&l.theme, "theme", "auto", "colour theme: auto (from the terminal background), dark or light")
	l.server.registerLocal(f)
	// The earlier names of --smtp and --http stay as aliases.
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		switch name {
		case "smtp-addr":
			name = "smtp"
		case "http-addr":
			name = "http"
		}
		return pflag.NormalizedName(name)
	})
}

// display holds the settings both modes share: theme, NO_COLOR, forced
// true colour (SANDVIEW_TRUECOLOR=1, for screenshots), and the terminal's
// environment, which decides the rest of the TUI's settings.
type display struct {
	dark    *bool
	noColor bool
	env     environment
	opts    []tea.ProgramOption
}

func (l *localOptions) display(env environment) (display, error) {
	// Run stops the TUI on SIGINT, SIGTERM and SIGHUP by cancelling its context;
	// Bubble Tea's own handler would race it (v2.0.10 then blocks sending
	// to the program that the cancellation already stopped).
	d := display{noColor: env.noColor(), env: env, opts: []tea.ProgramOption{tea.WithoutSignalHandler()}}
	switch l.theme {
	case "auto":
	case "dark", "light":
		dark := l.theme == "dark"
		d.dark = &dark
	default:
		return d, cmdutil.UsageError{Msg: fmt.Sprintf("--theme %q: want auto, dark or light", l.theme)}
	}
	if env.get("SANDVIEW_TRUECOLOR") == "1" && !d.noColor {
		d.opts = append(d.opts, tea.WithColorProfile(colorprofile.TrueColor))
	}
	return d, nil
}

// settings are the TUI's settings of this display, for this process's
// terminal; the caller adds the server's.
func (d display) settings() *tui.Settings {
	set := d.env.tuiSettings(tmuxClientFeatures)
	set.DarkTheme, set.NoColor = d.dark, d.noColor
	return set
}

// run runs the TUI with these display settings.
func (d display) run(ctx context.Context, cfg tui.Config) error {
	if cfg.Settings != nil && cfg.Settings.Renderer == nil {
		r, closeRenderer := d.env.newRenderer("")
		defer closeRenderer()
		withRenderer(cfg.Settings, r)
	}
	return tui.Run(ctx, cfg, d.opts...)
}

// runTUI opens the inbox viewer on the configured server, or on an embedded
// one with --local.
func runTUI(ctx context.Context, g *globalOptions, l *localOptions) error {
	if l.demo && !g.local {
		return cmdutil.UsageError{Msg: "--demo needs --local"}
	}
	d, err := l.display(g.env)
	if err != nil {
		return err
	}
	if g.local {
		if g.url != "" || g.apiKey != "" {
			return cmdutil.UsageError{Msg: "--local runs a server of its own: leave out --url and --api-key"}
		}
		if !cmdutil.IsTerminal(os.Stdin) || !cmdutil.IsTerminal(os.Stdout) {
			return runHeadless(ctx, os.Stdout, g, l)
		}
		return runLocal(ctx, g, l, d)
	}
	url, apiKey, err := g.target(ctx)
	if err != nil {
		return err
	}
	if url == "" || apiKey == "" {
		fmt.Fprintln(os.Stderr, tui.NoServerScreen())
		return &cmdutil.ExitError{Code: exitUsage, Err: cmdutil.ErrNoServer}
	}
	s, err := openSession(ctx, g, url, apiKey, tui.ClientOptions()...)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.CheckKey(ctx); err != nil {
		return err
	}
	home, err := g.stateHome()
	if err != nil {
		return err
	}
	set := d.settings()
	set.ServerLabel, set.TempDir = url, desktop.OpenedDir(home)
	return d.run(ctx, tui.Config{Client: s.Client, Keystore: s.Keystore, Settings: set})
}

// runLocal starts the embedded server with its state under the state
// directory, makes sure an inbox exists and takes all mail (catch-all),
// records the server for the CLI's --local, and runs the TUI on it.
func runLocal(ctx context.Context, g *globalOptions, l *localOptions, d display) error {
	local, err := startLocal(ctx, g, l)
	if err != nil {
		return err
	}
	defer local.close()
	home, err := g.stateHome()
	if err != nil {
		return err
	}
	notices, stopNotices := refusalNotices(local.srv)
	defer stopNotices()
	set := d.settings()
	set.ServerLabel = "local " + local.srv.HTTPAddr()
	set.SMTPAddr, set.CatchAll = local.srv.SMTPAddr(), local.inbox.Address()
	set.TempDir = desktop.OpenedDir(home)
	cfg := tui.Config{Client: local.session.Client, Keystore: local.session.Keystore, Settings: set, Notices: notices}
	if l.demo {
		cfg.Startup = func(ctx context.Context) error {
			return deliverDemo(ctx, local.session.Client, local.inbox, local.srv.SMTPAddr())
		}
	}
	return d.run(ctx, cfg)
}

// localRun is a running local server with the session the TUI watches it
// through.
type localRun struct {
	srv       *server.Server
	home      string // the state directory it serves
	keyFile   string // the file holding the API key
	session   *cmdutil.Session
	inbox     *client.Inbox
	release   func()
	closeOnce sync.Once
	// tls is how SMTP offers STARTTLS (nil: it does not).
	tls *smtpTLS
}

// startLocal claims the home (see claimLocalHome), starts the local
// server, opens a session on it with an inbox that is the catch-all (the
// same one after a restart: see localCatchAll), and records the server in
// the state file.
func startLocal(ctx context.Context, g *globalOptions, l *localOptions) (*localRun, error) {
	if l.flags != nil {
		if err := l.server.applyEnv(l.flags, g.env); err != nil {
			return nil, err
		}
	}
	home, err := g.stateHome()
	if err != nil {
		return nil, err
	}
	release, err := claimLocalHome(home)
	if err != nil {
		return nil, err
	}
	run := &localRun{release: release, home: home}
	if err := run.start(ctx, g, l, home); err != nil {
		run.close()
		return nil, err
	}
	return run, nil
}

func (r *localRun) start(ctx context.Context, g *globalOptions, l *localOptions, home string) error {
	dir := localDir(home)
	apiKey, keyFile, _, err := server.LoadOrCreateAPIKey(dir)
	if err != nil {
		return err
	}
	webhooks := webhook.DefaultConfig()
	webhooks.AllowLoopbackHTTP = true // the pane's built-in receiver listens on loopback
	webhooks.AllowPrivate = true      // a sandbox on this machine: its receivers are local
	cfg := l.server.cfg
	cfg.APIKey, cfg.DataDir, cfg.HTTP.Dev, cfg.Webhooks = apiKey, dir, true, &webhooks
	// A developer's own sandbox: chaos is there for whoever sets it on an
	// inbox.
	cfg.Chaos = true
	cfg.Welcome = newServerWelcome("").page
	if r.tls, err = l.server.setupTLS(&cfg, dir, tlsNames(cfg.SMTPAddr, "")); err != nil {
		return err
	}
	r.srv, err = server.Start(ctx, cfg)
	if err != nil {
		if held := holder(home); held != nil {
			return held
		}
		return fmt.Errorf("start the local server (another program may use these ports: try --smtp/--http): %w", err)
	}
	r.keyFile = keyFile
	if r.session, err = cmdutil.OpenSession(ctx, localKeystoreDir(home), r.srv.URL(), apiKey, tui.ClientOptions()...); err != nil {
		return err
	}
	if r.inbox, err = localCatchAll(ctx, r.srv, r.session, home); err != nil {
		return err
	}
	return writeLocalState(home, localState{
		PID: os.Getpid(), URL: r.srv.URL(), SMTP: r.srv.SMTPAddr(), APIKey: apiKey, CatchAll: r.inbox.Address(),
		TLSCert: r.tls.certFile(),
	})
}

// close removes the state file, then stops the session and the server.
func (r *localRun) close() {
	r.closeOnce.Do(func() {
		r.release()
		if r.session != nil {
			r.session.Close()
		}
		if r.srv != nil {
			shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = r.srv.Shutdown(shutdownCtx)
		}
	})
}

// ensureInbox returns the first loaded inbox, creating (and saving) one when
// there is none.
func ensureInbox(ctx context.Context, s *cmdutil.Session) (*client.Inbox, error) {
	for _, in := range s.Client.Inboxes() {
		if !in.IsExpired() {
			return in, nil
		}
	}
	in, err := s.Client.CreateInbox(ctx, client.CreateInboxOptions{TTL: 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	return in, s.Save(in)
}

// demoMails are the varied messages `--demo` delivers over SMTP.
func demoMails(to string) []outgoingMail {
	return []outgoingMail{
		{From: `"Sandview Demo" <demo@example.org>`, To: to, Subject: "Welcome to sandview",
			Text: "Mail sent to your sandbox inbox shows up here as it arrives.\n\nDocs: https://example.org/sandview\nSupport: mailto:help@example.org\n",
			HTML: `<h1>Welcome</h1><p>Mail sent to your sandbox inbox shows up here as it arrives.</p><p><a href="https://example.org/sandview">Docs</a></p>`},
		{From: `"Shop" <orders@shop.example>`, To: to, Subject: "Your order #1042 has shipped",
			HTML: demoOrderHTML,
			Attachments: []outgoingAttachment{
				{Name: "order-1042.csv", ContentType: "text/csv", Content: []byte("item,qty\nwidget,2\n")},
				{Name: "invoice.pdf", ContentType: "application/pdf", Content: []byte("%PDF-1.4\n% demo invoice\n")},
			}},
		{From: `"Jürgen Müller" <juergen@example.de>`, To: to, Subject: "Grüße aus Köln — 日本語テスト 🚀",
			Text: "Hallo! Ünïcödé bodies render fine: ½ ≠ ∞, 你好, Привет, مرحبا.\n\nhttps://example.de/grüße\n"},
	}
}

// demoOrderHTML is the demo's templated HTML mail: a heading, bold and
// struck-out text, a data table, a button and an image, as shops send.
const demoOrderHTML = `<h1>Your order has shipped</h1>
<p>Hi Sam, good news: order <b>#1042</b> is on its way. Use code <b>SPRING70</b> for 70% off your next order.</p>
<table><tr><th>Item</th><th>Qty</th><th>Price</th></tr>
<tr><td>Widget Pro</td><td>2</td><td><b>$20.99</b> <s>$50.99</s></td></tr>
<tr><td>Gadget mini</td><td>1</td><td>$9.50</td></tr></table>
<p><a href="https://shop.example/track/1042" style="background:#2563eb;color:#ffffff;padding:10px 18px;border-radius:6px">Track your parcel</a></p>
<p><img src="https://shop.example/img/parcel.png" alt="a parcel on its way"></p>
<p><i>Thanks for shopping with us.</i></p>`

// demoTestEmails use the test endpoint for chosen authentication results.
func demoTestEmails(to string) []model.TestEmailRequest {
	pass := true
	return []model.TestEmailRequest{
		{To: to, From: "alerts@bank.example", Subject: "Password reset (SPF fails, DKIM passes)",
			Text: "Someone asked to reset your password: https://bank.example/reset?token=demo\n",
			SPF:  model.ResultFail, DKIM: model.ResultPass, DMARC: model.ResultFail, ReverseDNS: &pass},
		{To: to, From: "news@trusted.example", Subject: "Newsletter: every check passes",
			Text: "All of SPF, DKIM, DMARC and reverse DNS pass for this one.\n",
			SPF:  model.ResultPass, DKIM: model.ResultPass, DMARC: model.ResultPass, ReverseDNS: &pass},
	}
}

// deliverDemo sends the demo mails a moment apart so they arrive live.
func deliverDemo(ctx context.Context, c *client.Client, inbox *client.Inbox, smtpAddr string) error {
	var errs []error
	pause := func() bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(700 * time.Millisecond):
			return true
		}
	}
	for _, m := range demoMails(inbox.Address()) {
		if !pause() {
			return nil
		}
		errs = append(errs, sendMail(ctx, smtpsend.Dialer{}, smtpAddr, m))
	}
	for _, req := range demoTestEmails(inbox.Address()) {
		if !pause() {
			return nil
		}
		_, err := c.SendTestEmail(ctx, req)
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("demo mail: %w", err)
	}
	return nil
}
