package cli

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/tlscert"
)

// docSnippet is the code block of docs/apps.md that follows
// <!-- snippet:NAME -->, as written there.
func docSnippet(t *testing.T, name string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "apps.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "<!-- snippet:"+name+" -->\n```")
	if ok {
		_, block, ok = strings.Cut(block, "\n") // the fence's language
	}
	if ok {
		block, _, ok = strings.Cut(block, "```\n")
	}
	if !ok {
		t.Fatalf("docs/apps.md has no %s snippet", name)
	}
	return block
}

// globalNodeModules is where `npm install -g` put nodemailer (.ci/run does).
func globalNodeModules(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("npm", "root", "-g").Output()
	root := strings.TrimSpace(string(out))
	if err != nil {
		t.Fatalf("npm root -g: %v (the nodemailer snippet needs node and npm: .ci/run installs them)", err)
	}
	if _, err := os.Stat(filepath.Join(root, "nodemailer")); err != nil {
		t.Fatalf("nodemailer is not installed in %s: npm install -g nodemailer (.ci/run does)", root)
	}
	return root
}

// TestDocsAppSnippets runs the Python (plain and over STARTTLS), Go,
// nodemailer and PHP (Symfony Mailer) snippets of docs/apps.md as written,
// each against an embedded server of its own with a catch-all and
// STARTTLS offered (SMTP_HOST, SMTP_PORT and SMTP_TLS_CERT set as `sandview
// serve` prints them; the Go one run with SSL_CERT_FILE as it says), and
// checks that its one mail arrived for new-user@example.org
// with its code and its SMTP login. Those that start TLS must fail
// without what lets them past the certificate made at start.
func TestDocsAppSnippets(t *testing.T) {
	const catchAll = "qa@sandbox.test"
	for _, c := range []struct {
		name, file string
		command    []string
		// trust is the snippet's text that lets it past the certificate
		// made at start (the Go one is run with SSL_CERT_FILE instead);
		// without it the snippet fails with distrust.
		trust, distrust string
	}{
		{name: "python", file: "send.py", command: []string{"python3", "send.py"}},
		{name: "python-tls", file: "send.py", command: []string{"python3", "send.py"},
			trust: `cafile=os.environ["SMTP_TLS_CERT"]`, distrust: "CERTIFICATE_VERIFY_FAILED"},
		{name: "go", file: "main.go", command: []string{"go", "run", "main.go"}, distrust: "x509: certificate signed by unknown authority"},
		{name: "node", file: "send.js", command: []string{"node", "send.js"},
			trust: "  ignoreTLS: true, // no STARTTLS; or trust sandview's: NODE_EXTRA_CA_CERTS=\"$SMTP_TLS_CERT\"\n", distrust: "self-signed certificate"},
		{name: "php", file: "send.php", command: []string{"php", "send.php"}, trust: "?verify_peer=0", distrust: "certificate verify failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A server of its own: its catch-all holds this snippet's mail alone.
			// STARTTLS offered as `sandview --local` offers it, with the
			// certificate's file exported as its banner does.
			cert, err := tlscert.Generate([]string{"127.0.0.1", "localhost", "::1"}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			certFile := filepath.Join(t.TempDir(), "smtp-tls-cert.pem")
			if err := os.WriteFile(certFile, cert.PEM(), 0o600); err != nil {
				t.Fatal(err)
			}
			h := newCLI(t, func(c *server.Config) { c.CatchAll, c.SMTP.TLSConfig = catchAll, cert.Config() })
			host, port, err := net.SplitHostPort(h.srv.SMTPAddr())
			if err != nil {
				t.Fatal(err)
			}
			dir, untrustingDir := t.TempDir(), t.TempDir()
			snippet := docSnippet(t, c.name)
			if !strings.Contains(snippet, c.trust) {
				t.Fatalf("the %s snippet lacks %q", c.name, c.trust)
			}
			if err := os.WriteFile(filepath.Join(dir, c.file), []byte(snippet), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(untrustingDir, c.file), []byte(strings.Replace(snippet, c.trust, "", 1)), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, c.command[0], c.command[1:]...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "SMTP_HOST="+host, "SMTP_PORT="+port, "SMTP_TLS_CERT="+certFile, "GOFLAGS=", "GO111MODULE=")
			if c.name == "node" {
				cmd.Env = append(cmd.Env, "NODE_PATH="+globalNodeModules(t))
			}
			if c.distrust != "" {
				// The app that starts TLS and checks the certificate fails
				// without what lets it past the one made at start.
				untrusting := exec.CommandContext(ctx, c.command[0], c.command[1:]...)
				untrusting.Dir, untrusting.Env = untrustingDir, cmd.Env
				if out, err := untrusting.CombinedOutput(); err == nil || !strings.Contains(string(out), c.distrust) {
					t.Fatalf("the %s snippet without %q: %v, want %q\n%s", c.name, c.trust, err, c.distrust, out)
				}
			}
			if c.name == "go" { // as the snippet's comment says
				cmd.Env = append(cmd.Env, "SSL_CERT_FILE="+certFile)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the %s snippet: %v\n%s", c.name, err, out)
			}
			code := h.run("wait", "--inbox", catchAll, "--to", "new-user@example.org", "--subject", "^Welcome to Acme$",
				"--timeout", "10s", "--extract", "code")
			if code.code != 0 || code.stdout != "482913\n" {
				t.Fatalf("the %s snippet's mail: exit %d, %q %q", c.name, code.code, code.stdout, code.stderr)
			}
			listed := decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", catchAll, "--json"))
			if len(listed) != 1 {
				t.Fatalf("the catch-all holds %d mails after the %s snippet, want 1: %+v", len(listed), c.name, listed)
			}
			shown := decodeJSON[emailView](t, h.must("email", "show", listed[0].ID, "--inbox", catchAll, "--json"))
			if shown.SMTPUser != "my-app" || shown.From != "app@example.org" || strings.Join(shown.To, ",") != "new-user@example.org" {
				t.Fatalf("the %s snippet's mail: %+v", c.name, shown)
			}
		})
	}
}
