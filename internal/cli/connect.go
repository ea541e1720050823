package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
)

// connectInfo is how a script or another shell reaches a running server.
type connectInfo struct {
	URL, SMTP string
	// KeyFile is the file holding the API key; "" when the key is not in a
	// file (keyNote then says where it is).
	KeyFile, keyNote string
	// TLSCert is the PEM certificate SMTP's STARTTLS presents, for clients
	// to trust; "" without STARTTLS.
	TLSCert string
}

// printConnect ends a server's banner (which shows its HTTP and SMTP
// addresses) with the connect block: where the API key is, and export
// lines a script can eval (eval "$(grep '^export ' LOG)"). The key itself
// is never printed: the export reads it from its file.
func printConnect(w io.Writer, c connectInfo) {
	if c.KeyFile != "" {
		fmt.Fprintf(w, "  API key   in %s (0600)\n", c.KeyFile)
	} else {
		fmt.Fprintf(w, "  API key   %s\n", c.keyNote)
	}
	fmt.Fprintln(w, "Connect from a shell or script (eval \"$(grep '^export ' LOG)\"):")
	fmt.Fprintf(w, "export SERVICE_URL=%s\n", shellQuote(c.URL))
	if c.KeyFile != "" {
		fmt.Fprintf(w, "export SERVICE_API_KEY=\"$(cat %s)\"\n", shellQuote(c.KeyFile))
	}
	if c.TLSCert != "" {
		fmt.Fprintf(w, "export SMTP_TLS_CERT=%s\n", shellQuote(c.TLSCert))
	}
	// SMTP_HOST's line comes last: scripts read the banner up to it.
	if host, port, err := net.SplitHostPort(c.SMTP); err == nil {
		fmt.Fprintf(w, "export SMTP_HOST=%s SMTP_PORT=%s\n", shellQuote(host), shellQuote(port))
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runHeadless runs the local server without a terminal (CI, a service
// manager): it prints the connect block and runs until ctx ends (SIGINT,
// SIGTERM), then stops cleanly and removes the state file.
func runHeadless(ctx context.Context, w io.Writer, g *globalOptions, l *localOptions) error {
	local, err := startLocal(ctx, g, l)
	if err != nil {
		return err
	}
	defer local.close()
	fmt.Fprintf(w, "sandview --local: no terminal, so no TUI; serving until SIGINT or SIGTERM\n"+
		"  HTTP API  %s\n  SMTP      %s\n  catch-all %s takes mail for any address\n  state     %s (for --local commands)\n",
		local.srv.URL(), local.srv.SMTPAddr(), local.inbox.Address(), localStatePath(local.home))
	local.tls.banner(w)
	printConnect(w, connectInfo{URL: local.srv.URL(), SMTP: local.srv.SMTPAddr(), KeyFile: local.keyFile, TLSCert: local.tls.certFile()})
	if l.demo {
		if err := deliverDemo(ctx, local.session.Client, local.inbox, local.srv.SMTPAddr()); err != nil {
			fmt.Fprintf(w, "sandview: %v\n", err)
		}
	}
	<-ctx.Done()
	fmt.Fprintln(w, "Shutting down...")
	return nil
}
