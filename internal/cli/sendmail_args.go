package cli

import (
	"fmt"
	"net/mail"
	"strings"

	"sandview/internal/cli/cmdutil"
)

// sendmailArgs is a sendmail command line (`sandview sendmail …`, or the
// binary run as sendmail), parsed the way /usr/sbin/sendmail parses it:
// single-letter options, clustered (-ti) or not, their values attached
// (-faddr, -oi) or the next argument (-f addr); the rest are recipients.
type sendmailArgs struct {
	fromHeaders bool   // -t: recipients from To, Cc and Bcc too
	sender      string // -f/-r: the envelope sender ("" with senderSet: the null sender <>)
	senderSet   bool
	fullName    string // -F: the sender's name in a From header made for the message
	ignoreDots  bool   // -i, -oi: a line of a single "." does not end the message
	recipients  []string
	// sandview's own long options.
	smtp string // --smtp HOST:PORT
	tls  smtpTLSOptions
	help bool
}

// Options sendmail takes that mean nothing here: accepted and ignored,
// with their value when they take one (attached or the next argument).
const (
	sendmailIgnoredFlags = "GmnsvU"          // -G gateway, -m me too, -n no aliasing, -s, -v verbose, -U initial submission
	sendmailIgnoredValue = "ABCdDhLMNOpQRVX" // -Am, -B 8BITMIME, -C file, -h hops, -N dsn, -O opt=val, -R ret, -V envid, -X log …
)

// parseSendmailArgs parses a sendmail command line; a bad one is a usage
// error (exit 64 by sendmailExit).
func parseSendmailArgs(args []string) (sendmailArgs, error) {
	var s sendmailArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func(name string) (string, error) {
			if i+1 >= len(args) {
				return "", cmdutil.UsageError{Msg: fmt.Sprintf("sendmail: %s needs a value", name)}
			}
			i++
			return args[i], nil
		}
		switch {
		case a == "--":
			s.recipients = append(s.recipients, args[i+1:]...)
			return s, nil
		case strings.HasPrefix(a, "--"):
			if err := s.long(a, next); err != nil {
				return s, err
			}
		case strings.HasPrefix(a, "-") && a != "-":
			if err := s.cluster(a, next); err != nil {
				return s, err
			}
		default:
			s.recipients = append(s.recipients, a)
		}
	}
	return s, nil
}

// long parses one of sandview's own long options.
func (s *sendmailArgs) long(a string, next func(string) (string, error)) error {
	name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
	valued := func() (string, error) {
		if hasValue {
			return value, nil
		}
		return next("--" + name)
	}
	var err error
	switch name {
	case "help":
		s.help = true
	case "starttls":
		s.tls.startTLS = !hasValue || value == "true"
	case "smtp":
		s.smtp, err = valued()
	case "tls-ca":
		s.tls.caFile, err = valued()
	default:
		return cmdutil.UsageError{Msg: fmt.Sprintf("sendmail: unknown option --%s (sandview's own: --smtp, --starttls, --tls-ca, --help)", name)}
	}
	return err
}

// cluster parses one argument of single-letter options (-t, -ti, -faddr).
func (s *sendmailArgs) cluster(a string, next func(string) (string, error)) error {
	for j := 1; j < len(a); j++ {
		c := a[j]
		switch {
		case c == 't':
			s.fromHeaders = true
		case c == 'i':
			s.ignoreDots = true
		case strings.IndexByte(sendmailIgnoredFlags, c) >= 0:
		case strings.IndexByte("frFob"+sendmailIgnoredValue, c) >= 0:
			value := a[j+1:]
			if value == "" {
				v, err := next("-" + string(c))
				if err != nil {
					return err
				}
				value = v
			}
			return s.valued(c, value)
		case c == 'q' || c == 'I':
			return cmdutil.UsageError{Msg: fmt.Sprintf("sendmail: -%c is not supported: sandview sendmail keeps no queue and no aliases, it only delivers one message", c)}
		default:
			return cmdutil.UsageError{Msg: fmt.Sprintf("sendmail: unknown option -%c", c)}
		}
	}
	return nil
}

// valued applies an option that takes a value.
func (s *sendmailArgs) valued(c byte, value string) error {
	switch c {
	case 'f', 'r':
		sender, err := envelopeSender(value)
		if err != nil {
			return err
		}
		s.sender, s.senderSet = sender, true
	case 'F':
		s.fullName = value
	case 'o':
		// -oi is -i; every other -oX (-odi, -oem, -oep, -om, …) sets
		// delivery or error modes a one-message client has no use for.
		if value == "i" {
			s.ignoreDots = true
		}
	case 'b':
		if value != "m" {
			return cmdutil.UsageError{Msg: fmt.Sprintf("sendmail: -b%s is not supported: sandview sendmail only delivers a message (-bm)", value)}
		}
	}
	return nil
}

// envelopeSender is the address of -f: "" for the null sender (<>).
func envelopeSender(value string) (string, error) {
	if v := strings.TrimSpace(value); v == "" || v == "<>" {
		return "", nil
	}
	addr, err := mail.ParseAddress(value)
	if err != nil {
		return "", cmdutil.UsageError{Msg: fmt.Sprintf("sendmail: -f %q is not an address: %v", value, err)}
	}
	return addr.Address, nil
}
