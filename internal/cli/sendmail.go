package cli

import (
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
)

// Exit codes of `sandview sendmail`: sendmail's, from sysexits.h.
const (
	exUsage       = 64 // a bad command line
	exDataErr     = 65 // no recipients, an unparsable address or header
	exNoUser      = 67 // the server refused a recipient for good (5.1.x)
	exUnavailable = 69 // no SMTP server known, it cannot be reached, or it refused the mail for good
	exIOErr       = 74 // standard input could not be read
	exTempFail    = 75 // the server said try again later (4xx), or the connection broke
)

const sendmailLong = `Send the message read from standard input over SMTP, as /usr/sbin/sendmail
does: PHP's mail() (sendmail_path), cron, git send-email and other programs
that pipe mail to sendmail deliver to the sandbox this way. It delivers to
the server ` + "`sandview send`" + ` does: --smtp, else SMTP_HOST/SMTP_PORT, else
` + "`sandview config --smtp`" + `, else the running ` + "`sandview --local`" + `. Mail goes in
plain text unless --starttls or --tls-ca ask for STARTTLS.

A binary (or a link to it) named sendmail runs this command: link
/usr/sbin/sendmail to sandview to catch every program's mail.

  -t          recipients from the To, Cc and Bcc headers too (besides the
              arguments); the Bcc headers are removed from the message
              (always, as sendmail does)
  -f ADDR     envelope sender (also -fADDR, -r ADDR; -f '<>' is the null
              sender); default: the From header's address, else
              sandview@localhost
  -F NAME     the sender's full name, for the From header made for a
              message that has none
  -i, -oi     a line of a single "." does not end the message (else it does)
  --smtp HOST:PORT, --starttls, --tls-ca FILE   as for sandview send

Accepted and ignored, as they set what a one-message client has no use
for: every other -oX (-odi, -odb, -oem, -oep, -om, ...), -G -m -n -s -v -U,
and -A -B -C -d -D -h -L -M -N -O -p -Q -R -V -X with their value. -bm is
accepted; the other modes (-bs, -bp, -bi, ...), -q and -I are refused.
A message without From, Date or Message-ID gets one.

Exit codes (sysexits): 0 sent; 64 bad usage; 65 no recipients, or an
unparsable address or header; 67 the server refused a recipient; 69 no SMTP
server known, it cannot be reached, or it refused the mail; 74 standard
input unreadable; 75 the server said try again later (4xx).`

func newSendmailCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "sendmail [-t] [-i] [-f SENDER] [-F NAME] [RECIPIENT...] < MESSAGE",
		Short:                 "Send a message from standard input as /usr/sbin/sendmail does (for PHP's mail() and other apps)",
		Long:                  sendmailLong,
		Example:               `  php -d sendmail_path="sandview sendmail -t -i" -r 'mail("qa@sandbox.test", "Hi", "It works");'`,
		DisableFlagParsing:    true,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := runSendmail(cmd, g, args)
			if err == nil {
				return nil
			}
			return &cmdutil.ExitError{Code: sendmailExitCode(err), Err: err}
		},
	}
	// Its options are sendmail's (the help above), not cobra's flags: -h
	// is sendmail's hop count, and the global flags do not apply.
	cmd.SetUsageTemplate("Usage:\n  {{.UseLine}}\n{{if .HasExample}}\nExamples:\n{{.Example}}\n{{end}}")
	return cmd
}

// runSendmail runs one sendmail command line.
func runSendmail(cmd *cobra.Command, g *globalOptions, args []string) error {
	a, err := parseSendmailArgs(args)
	if err != nil {
		return err
	}
	if a.help {
		return cmd.Help()
	}
	dialer, err := a.tls.dialer()
	if err != nil {
		return err
	}
	data, err := readSendmailInput(cmd.InOrStdin(), a.ignoreDots)
	if err != nil {
		return &cmdutil.ExitError{Code: exIOErr, Err: err}
	}
	msg, err := prepareSendmail(a, data, time.Now())
	if err != nil {
		return err
	}
	addr, err := g.smtpTarget(cmd.Context(), a.smtp)
	if err != nil {
		return err
	}
	return dialer.Send(cmd.Context(), addr, msg.from, msg.to, msg.data)
}

// sendmailExitCode is the sysexits code of a sendmail error.
func sendmailExitCode(err error) int {
	var (
		exit    *cmdutil.ExitError
		refused *smtp.SMTPError
		netErr  *net.OpError
		data    dataError
	)
	switch {
	case errors.Is(err, errNoSMTP):
		return exUnavailable
	case errors.As(err, &exit) && exit.Code >= exUsage:
		return exit.Code
	case cmdutil.IsUsageError(err):
		return exUsage
	case errors.As(err, &data):
		return exDataErr
	case errors.As(err, &refused) && refused.Code/100 == 4:
		return exTempFail
	case errors.As(err, &refused) && refused.EnhancedCode[0] == 5 && refused.EnhancedCode[1] == 1:
		return exNoUser
	case errors.As(err, &netErr) && netErr.Op == "dial":
		return exUnavailable
	case errors.As(err, &netErr), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return exTempFail
	}
	return exUnavailable
}

// commandLine is the command line of argv (the program's name first)
// without that name: a program named sendmail (a link to sandview at
// /usr/sbin/sendmail) runs `sandview sendmail`.
func commandLine(argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	if name := strings.TrimSuffix(filepath.Base(argv[0]), ".exe"); name == "sendmail" {
		return append([]string{"sendmail"}, argv[1:]...)
	}
	return argv[1:]
}
