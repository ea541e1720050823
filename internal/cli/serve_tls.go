package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sandview/client/securefile"
	"sandview/internal/cli/cmdutil"
	"sandview/server"
	"sandview/server/tlscert"
)

// The SMTP server of `serve` and `--local` offers STARTTLS unless
// --smtp-starttls=false: with the --tls-cert/--tls-key pair, or with a
// certificate made at every start for the names the server is reached by,
// whose public part is saved in the server's directory for clients to
// trust (the private key stays in memory).

// smtpTLSCertFile is the file name, in the server's directory, of the
// public part of the certificate made at start.
const smtpTLSCertFile = "smtp-tls-cert.pem"

// smtpTLS is how a started server offers STARTTLS, for its banner.
type smtpTLS struct {
	cert      *tlscert.Cert
	file      string // the PEM certificate clients trust: saved at start, or --tls-cert
	generated bool
	required  bool
}

// setupTLS puts the STARTTLS settings in cfg: the --tls-cert pair, or a
// certificate made for names and saved in dir. It returns nil when
// STARTTLS is off.
func (s *serverSettings) setupTLS(cfg *server.Config, dir string, names []string) (*smtpTLS, error) {
	if (s.tlsCert == "") != (s.tlsKey == "") {
		return nil, cmdutil.UsageError{Msg: "--tls-cert and --tls-key go together"}
	}
	if !s.starttls {
		if s.tlsCert != "" || s.cfg.SMTP.RequireTLS {
			return nil, cmdutil.UsageError{Msg: "--smtp-starttls=false turns TLS off: leave out --tls-cert, --tls-key and --smtp-require-tls"}
		}
		return nil, nil
	}
	t := &smtpTLS{required: s.cfg.SMTP.RequireTLS, file: s.tlsCert}
	var err error
	if s.tlsCert != "" {
		if t.cert, err = tlscert.Load(s.tlsCert, s.tlsKey); err != nil {
			return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
	} else {
		if t.cert, err = tlscert.Generate(names, time.Now()); err != nil {
			return nil, err
		}
		t.file, t.generated = filepath.Join(dir, smtpTLSCertFile), true
		if err := securefile.Write(t.file, t.cert.PEM()); err != nil {
			return nil, fmt.Errorf("save the TLS certificate: %w", err)
		}
	}
	cfg.SMTP.TLSConfig = t.cert.Config()
	return t, nil
}

// tlsNames are the names a certificate made at start is for: the host
// teammates reach smtpAddr by (see advertisedHost) and loopback's.
func tlsNames(smtpAddr, advertise string) []string {
	names := []string{advertisedHost(smtpAddr, advertise)}
	for _, name := range []string{"localhost", "127.0.0.1", "::1"} {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// certFile is the certificate clients trust, "" when STARTTLS is off.
func (t *smtpTLS) certFile() string {
	if t == nil {
		return ""
	}
	return t.file
}

// banner writes the banner's STARTTLS lines: whether it is offered or
// required, and the certificate's file and SHA-256 fingerprint.
func (t *smtpTLS) banner(w io.Writer) {
	if t == nil {
		fmt.Fprintln(w, "  STARTTLS  off: plain SMTP only")
		return
	}
	mode := "offered (not required)"
	if t.required {
		mode = "required before MAIL and AUTH"
	}
	source := "from --tls-cert"
	if t.generated {
		source = "made at start for " + strings.Join(t.cert.Names(), ", ")
	}
	fmt.Fprintf(w, "  STARTTLS  %s, certificate %s\n  TLS cert  %s\n  SHA-256   %s\n", mode, source, t.file, t.cert.Fingerprint())
}
