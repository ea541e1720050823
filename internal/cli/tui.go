package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/model"
	"sandview/server"
	"sandview/server/webhook"
	"sandview/tui"
)

// localOptions are the root command's flags for `sandview --local`.
type localOptions struct {
	local, demo        bool
	smtpAddr, httpAddr string
	theme              string
}

func (l *localOptions) register(root *cobra.Command) {
	f := root.Flags()
	f.BoolVar(&l.local, "local", false, "start the embedded sandbox server on loopback and watch it")
	f.BoolVar(&l.demo, "demo", false, "with --local: deliver a handful of varied demo mails")
	f.StringVar(&l.smtpAddr, "smtp-addr", server.DefaultSMTPAddr, "with --local: SMTP listen address")
	f.StringVar(&l.httpAddr, "http-addr", server.DefaultHTTPAddr, "with --local: HTTP listen address")
	f.StringVar(&l.theme, "theme", "auto", "colour theme: auto (from the terminal background), dark or light")
}

// display holds the settings both modes share: theme, NO_COLOR, and forced
// true colour (SANDVIEW_TRUECOLOR=1, for screenshots).
type display struct {
	dark    *bool
	noColor bool
	opts    []tea.ProgramOption
}

func (l *localOptions) display() (display, error) {
	d := display{noColor: os.Getenv("NO_COLOR") != ""}
	switch l.theme {
	case "auto":
	case "dark", "light":
		dark := l.theme == "dark"
		d.dark = &dark
	default:
		return d, usageError{fmt.Sprintf("--theme %q: want auto, dark or light", l.theme)}
	}
	if os.Getenv("SANDVIEW_TRUECOLOR") == "1" && !d.noColor {
		d.opts = append(d.opts, tea.WithColorProfile(colorprofile.TrueColor))
	}
	return d, nil
}

// run runs the TUI with these display settings.
func (d display) run(ctx context.Context, cfg tui.Config) error {
	cfg.DarkTheme, cfg.NoColor = d.dark, d.noColor
	return tui.Run(ctx, cfg, d.opts...)
}

// runTUI opens the inbox viewer on the configured server, or on an embedded
// one with --local.
func runTUI(ctx context.Context, g *globalOptions, l *localOptions) error {
	if l.demo && !l.local {
		return usageError{"--demo needs --local"}
	}
	d, err := l.display()
	if err != nil {
		return err
	}
	if l.local {
		return runLocal(ctx, g, l, d)
	}
	url, apiKey, err := g.target()
	if err != nil {
		return err
	}
	if url == "" || apiKey == "" {
		fmt.Fprintln(os.Stderr, tui.NoServerScreen())
		return &exitError{code: exitUsage, err: errNoServer}
	}
	s, err := openSession(ctx, g, url, apiKey, tui.ClientOptions()...)
	if err != nil {
		return err
	}
	defer s.close()
	if _, err := s.client.CheckKey(ctx); err != nil {
		return err
	}
	return d.run(ctx, tui.Config{Client: s.client, Keystore: s.keystore, ServerLabel: url})
}

// runLocal starts the embedded server with its state under the state
// directory, makes sure an inbox exists, and runs the TUI on it.
func runLocal(ctx context.Context, g *globalOptions, l *localOptions, d display) error {
	home, err := g.stateHome()
	if err != nil {
		return err
	}
	dir := filepath.Join(home, "local")
	apiKey, _, _, err := server.LoadOrCreateAPIKey(dir)
	if err != nil {
		return err
	}
	webhooks := webhook.DefaultConfig()
	webhooks.AllowLoopbackHTTP = true // the pane's built-in receiver listens on loopback
	srv, err := server.Start(ctx, server.Config{
		HTTPAddr: l.httpAddr, SMTPAddr: l.smtpAddr, APIKey: apiKey, DataDir: dir, Dev: true,
		Webhooks: &webhooks,
	})
	if err != nil {
		return fmt.Errorf("start the local server (is another sandview already running? try --smtp-addr/--http-addr): %w", err)
	}
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()

	s, err := openSession(ctx, g, srv.URL(), apiKey, tui.ClientOptions()...)
	if err != nil {
		return err
	}
	defer s.close()
	inbox, err := ensureInbox(ctx, s)
	if err != nil {
		return err
	}
	cfg := tui.Config{
		Client: s.client, Keystore: s.keystore,
		ServerLabel: "local " + srv.HTTPAddr(),
		SMTPAddr:    srv.SMTPAddr(),
	}
	if l.demo {
		cfg.Startup = func(ctx context.Context) error { return deliverDemo(ctx, s.client, inbox, srv.SMTPAddr()) }
	}
	return d.run(ctx, cfg)
}

// ensureInbox returns the first loaded inbox, creating (and saving) one when
// there is none.
func ensureInbox(ctx context.Context, s *session) (*client.Inbox, error) {
	for _, in := range s.client.Inboxes() {
		if !in.IsExpired() {
			return in, nil
		}
	}
	in, err := s.client.CreateInbox(ctx, client.CreateInboxOptions{TTL: 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	return in, saveToKeystore(s, in)
}

// demoMails are the varied messages `--demo` delivers over SMTP.
func demoMails(to string) []outgoingMail {
	return []outgoingMail{
		{From: `"Sandview Demo" <demo@example.org>`, To: to, Subject: "Welcome to sandview",
			Text: "Mail sent to your sandbox inbox shows up here as it arrives.\n\nDocs: https://example.org/sandview\nSupport: mailto:help@example.org\n",
			HTML: `<h1>Welcome</h1><p>Mail sent to your sandbox inbox shows up here as it arrives.</p><p><a href="https://example.org/sandview">Docs</a></p>`},
		{From: `"Shop" <orders@shop.example>`, To: to, Subject: "Your order #1042 has shipped",
			HTML: `<h2>Shipped!</h2><p>Track it <a href="https://shop.example/track/1042">here</a>.</p><table><tr><td>Widget</td><td>2</td></tr></table>`,
			Attachments: []outgoingAttachment{
				{Name: "order-1042.csv", ContentType: "text/csv", Content: []byte("item,qty\nwidget,2\n")},
				{Name: "invoice.pdf", ContentType: "application/pdf", Content: []byte("%PDF-1.4\n% demo invoice\n")},
			}},
		{From: `"Jürgen Müller" <juergen@example.de>`, To: to, Subject: "Grüße aus Köln — 日本語テスト 🚀",
			Text: "Hallo! Ünïcödé bodies render fine: ½ ≠ ∞, 你好, Привет, مرحبا.\n\nhttps://example.de/grüße\n"},
	}
}

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
		errs = append(errs, sendMail(smtpAddr, m))
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
