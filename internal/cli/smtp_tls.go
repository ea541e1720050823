package cli

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"sandview/client/smtpsend"
	"sandview/internal/cli/cmdutil"
)

// smtpTLSOptions are the STARTTLS settings of the commands that send mail
// (send, sendmail). Without them mail goes in plain text, even to a server
// that offers STARTTLS: a sandbox's certificate is made at its start and
// verifies only against itself, so a client that started TLS whenever it
// was offered could not send to it.
type smtpTLSOptions struct {
	startTLS bool
	caFile   string
}

func (o *smtpTLSOptions) register(f *pflag.FlagSet) {
	f.BoolVar(&o.startTLS, "starttls", false, "require STARTTLS, verifying the server's certificate against the system's CAs (or --tls-ca's); without it mail goes in plain text even when STARTTLS is offered")
	f.StringVar(&o.caFile, "tls-ca", "", "PEM file of the CA (or the server's own self-signed certificate) that the STARTTLS certificate must verify against; implies --starttls")
}

// dialer is the SMTP dialer these settings ask for.
func (o smtpTLSOptions) dialer() (smtpsend.Dialer, error) {
	if !o.startTLS && o.caFile == "" {
		return smtpsend.Dialer{}, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.caFile != "" {
		pem, err := os.ReadFile(o.caFile)
		if err != nil {
			return smtpsend.Dialer{}, cmdutil.UsageError{Msg: fmt.Sprintf("--tls-ca: %v", err)}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return smtpsend.Dialer{}, cmdutil.UsageError{Msg: fmt.Sprintf("--tls-ca %s holds no PEM certificate", o.caFile)}
		}
		cfg.RootCAs = pool
	}
	return smtpsend.Dialer{StartTLS: cfg}, nil
}
