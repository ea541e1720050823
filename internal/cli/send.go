package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"net/textproto"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"sandview/client/keystore"
	"sandview/client/smtpsend"
	"sandview/internal/cli/cmdutil"
)

// outgoingMail is one message for `sandview send` and the demo.
type outgoingMail struct {
	From, To, Subject, Text, HTML string
	Attachments                   []outgoingAttachment
}

type outgoingAttachment struct {
	Name, ContentType string
	Content           []byte
}

func newSendCommand(g *globalOptions) *cobra.Command {
	var (
		m        outgoingMail
		attach   []string
		smtpHost string
		tlsOpts  smtpTLSOptions
	)
	cmd := &cobra.Command{
		Use:   "send",
		Short: "Send one real mail over SMTP (to the local server by default)",
		Example: `  sandview send --to qa@sandbox.test --subject "Hello" --text "It works"
  sandview send --to qa@sandbox.test --html "<b>hi</b>" --attach report.pdf --smtp 127.0.0.1:1025`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if m.To == "" {
				return cmdutil.UsageError{Msg: "--to is required"}
			}
			for _, path := range attach {
				a, err := readAttachment(path)
				if err != nil {
					return err
				}
				m.Attachments = append(m.Attachments, a)
			}
			dialer, err := tlsOpts.dialer()
			if err != nil {
				return err
			}
			addr, err := g.smtpTarget(cmd.Context(), smtpHost)
			if err != nil {
				return err
			}
			if err := sendMail(cmd.Context(), dialer, addr, m); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "sent to %s via %s\n", m.To, addr)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&m.To, "to", "", "recipient address (required)")
	f.StringVar(&m.From, "from", "sandview@localhost", "sender address")
	f.StringVar(&m.Subject, "subject", "Test from sandview", "subject")
	f.StringVar(&m.Text, "text", "", "plain-text body")
	f.StringVar(&m.HTML, "html", "", "HTML body")
	f.StringArrayVar(&attach, "attach", nil, "file to attach (repeatable)")
	f.StringVar(&smtpHost, "smtp", "", "SMTP server HOST:PORT (default: env SMTP_HOST/SMTP_PORT, else the config's, else the running local server's)")
	tlsOpts.register(f)
	return cmd
}

// errNoSMTP is the error of `sandview send` with no SMTP server to use.
var errNoSMTP = &cmdutil.ExitError{Code: exitUsage, Err: errors.New("no SMTP server to send to: pass --smtp HOST:PORT, set SMTP_HOST (and SMTP_PORT), run `sandview config --smtp HOST:PORT`, or start `sandview --local`")}

// smtpTarget picks the SMTP server `sandview send` delivers to, the first
// of: --smtp; with --local, the local server's; SMTP_HOST/SMTP_PORT; the
// config file's; the running local server of this home. None is errNoSMTP.
func (g *globalOptions) smtpTarget(ctx context.Context, flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if g.local {
		st, err := g.localServer(ctx)
		return st.SMTP, err
	}
	if host, port := g.env.get("SMTP_HOST"), g.env.get("SMTP_PORT"); host != "" || port != "" {
		return net.JoinHostPort(cmdutil.FirstNonEmpty(host, "127.0.0.1"), cmdutil.FirstNonEmpty(port, "25")), nil
	}
	home, err := g.stateHome()
	if err != nil {
		return "", err
	}
	cfg, err := keystore.LoadConfig(home)
	if err != nil {
		return "", err
	}
	if cfg.SMTP != "" {
		return cfg.SMTP, nil
	}
	if st, found, err := readLocalState(home); err == nil && found && st.SMTP != "" && processAlive(st.PID) {
		return st.SMTP, nil
	}
	return "", errNoSMTP
}

func readAttachment(path string) (outgoingAttachment, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return outgoingAttachment{}, fmt.Errorf("attach %s: %w", path, err)
	}
	ctype := mime.TypeByExtension(filepath.Ext(path))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	return outgoingAttachment{Name: filepath.Base(path), ContentType: ctype, Content: content}, nil
}

// sendMail delivers m over SMTP to addr.
func sendMail(ctx context.Context, d smtpsend.Dialer, addr string, m outgoingMail) error {
	from, err := mail.ParseAddress(m.From)
	if err != nil {
		return cmdutil.UsageError{Msg: fmt.Sprintf("--from %q is not an address: %v", m.From, err)}
	}
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return cmdutil.UsageError{Msg: fmt.Sprintf("--to %q is not an address: %v", m.To, err)}
	}
	msg, err := composeMail(m, time.Now())
	if err != nil {
		return err
	}
	return d.Send(ctx, addr, from.Address, []string{to.Address}, msg)
}

// composeMail builds an RFC 5322 message: text and/or HTML (alternative),
// with attachments (mixed).
func composeMail(m outgoingMail, now time.Time) ([]byte, error) {
	var buf bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&buf, "%s: %s\r\n", k, v) }
	header("From", m.From)
	header("To", m.To)
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", fmt.Sprintf("<%s@sandview>", randomToken()))
	header("MIME-Version", "1.0")

	text := m.Text
	if text == "" && m.HTML == "" {
		text = "Sent by sandview.\n"
	}
	bodyHeader, body := bodyPart(text, m.HTML)
	if len(m.Attachments) == 0 {
		for k := range bodyHeader {
			header(k, bodyHeader.Get(k))
		}
		buf.WriteString("\r\n")
		buf.Write(body)
		return buf.Bytes(), nil
	}
	mixed := multipart.NewWriter(&buf)
	header("Content-Type", `multipart/mixed; boundary="`+mixed.Boundary()+`"`)
	buf.WriteString("\r\n")
	parts := []mimePart{{bodyHeader, body}}
	for _, a := range m.Attachments {
		h := textproto.MIMEHeader{}
		h.Set("Content-Type", a.ContentType)
		h.Set("Content-Transfer-Encoding", "base64")
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.Name}))
		parts = append(parts, mimePart{h, wrapBase64(a.Content)})
	}
	for _, p := range parts {
		w, err := mixed.CreatePart(p.h)
		if err != nil {
			return nil, fmt.Errorf("compose mail: %w", err)
		}
		if _, err := w.Write(p.content); err != nil {
			return nil, fmt.Errorf("compose mail: %w", err)
		}
	}
	if err := mixed.Close(); err != nil {
		return nil, fmt.Errorf("compose mail: %w", err)
	}
	return buf.Bytes(), nil
}

// mimePart is one part of a multipart body.
type mimePart struct {
	h       textproto.MIMEHeader
	content []byte
}

// bodyPart is the header and content of the message body: one text part,
// one HTML part, or both as multipart/alternative.
func bodyPart(text, html string) (textproto.MIMEHeader, []byte) {
	h := textproto.MIMEHeader{}
	single := func(ctype, content string) (textproto.MIMEHeader, []byte) {
		h.Set("Content-Type", ctype+"; charset=utf-8")
		h.Set("Content-Transfer-Encoding", "base64")
		return h, wrapBase64([]byte(content))
	}
	switch {
	case html == "":
		return single("text/plain", text)
	case text == "":
		return single("text/html", html)
	}
	var buf bytes.Buffer
	alt := multipart.NewWriter(&buf)
	for _, p := range []struct{ ctype, content string }{{"text/plain", text}, {"text/html", html}} {
		ph := textproto.MIMEHeader{}
		ph.Set("Content-Type", p.ctype+"; charset=utf-8")
		ph.Set("Content-Transfer-Encoding", "base64")
		w, _ := alt.CreatePart(ph) // writes to a bytes.Buffer: cannot fail
		_, _ = w.Write(wrapBase64([]byte(p.content)))
	}
	_ = alt.Close()
	h.Set("Content-Type", `multipart/alternative; boundary="`+alt.Boundary()+`"`)
	return h, buf.Bytes()
}

// wrapBase64 encodes b as base64 in 76-character lines.
func wrapBase64(b []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(b)
	var out bytes.Buffer
	for len(enc) > 76 {
		out.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	out.WriteString(enc + "\r\n")
	return out.Bytes()
}

func randomToken() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
