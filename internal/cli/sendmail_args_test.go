package cli

import (
	"errors"
	"io"
	"net"
	"net/mail"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/internal/cli/cmdutil"
)

// TestSendmailArgsParse: sendmail's command lines as programs write them
// (clustered, values attached or apart, -o options, --) parse to the
// same settings; unknown -o options are accepted and ignored.
func TestSendmailArgsParse(t *testing.T) {
	for line, want := range map[string]sendmailArgs{
		"-t -i":                          {fromHeaders: true, ignoreDots: true},
		"-ti":                            {fromHeaders: true, ignoreDots: true},
		"-t -oi":                         {fromHeaders: true, ignoreDots: true},
		"-oi -odi -oem -oep -om":         {ignoreDots: true},
		"-f bounce@app.example a@b.test": {sender: "bounce@app.example", senderSet: true, recipients: []string{"a@b.test"}},
		"-fbounce@app.example a@b.test":  {sender: "bounce@app.example", senderSet: true, recipients: []string{"a@b.test"}},
		"-r bounce@app.example -t":       {sender: "bounce@app.example", senderSet: true, fromHeaders: true},
		"-f <> a@b.test":                 {senderSet: true, recipients: []string{"a@b.test"}},
		"-F Shop -f x@y.test -t":         {fullName: "Shop", sender: "x@y.test", senderSet: true, fromHeaders: true},
		"-FShop -v -U -G -n -m -s a@b":   {fullName: "Shop", recipients: []string{"a@b"}},
		"-B 8BITMIME -N never -R hdrs -V envid -O DeliveryMode=i -Am -C /etc/x -h 3 -X /tmp/log -bm a@b": {recipients: []string{"a@b"}},
		"a@b -t c@d":                       {fromHeaders: true, recipients: []string{"a@b", "c@d"}},
		"-- -weird@b -t":                   {recipients: []string{"-weird@b", "-t"}},
		"--smtp 127.0.0.1:2525 -t":         {smtp: "127.0.0.1:2525", fromHeaders: true},
		"--smtp=127.0.0.1:2525 --starttls": {smtp: "127.0.0.1:2525", tls: smtpTLSOptions{startTLS: true}},
		"--tls-ca ca.pem -t":               {tls: smtpTLSOptions{caFile: "ca.pem"}, fromHeaders: true},
		"--help":                           {help: true},
		"":                                 {},
	} {
		got, err := parseSendmailArgs(strings.Fields(line))
		if err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v, want %+v", line, got, want)
		}
	}
}

// TestSendmailArgsRefused: a bad sendmail command line is a usage error
// (exit 64) saying what is wrong, never a panic.
func TestSendmailArgsRefused(t *testing.T) {
	for line, want := range map[string]string{
		"-f":                "-f needs a value",
		"-t -F":             "-F needs a value",
		"-o":                "-o needs a value",
		"-f not an address": "not an address",
		"-x":                "unknown option -x",
		"-tz":               "unknown option -z",
		"--verbose":         "unknown option --verbose",
		"--smtp":            "--smtp needs a value",
		"-bs":               "-bs is not supported",
		"-bp":               "-bp is not supported",
		"-q":                "-q is not supported",
		"-q30m":             "-q is not supported",
		"-I":                "-I is not supported",
	} {
		_, err := parseSendmailArgs(strings.Fields(line))
		if err == nil || !cmdutil.IsUsageError(err) || !strings.Contains(err.Error(), want) || sendmailExitCode(err) != exUsage {
			t.Errorf("%q: %v; want a usage error (64) with %q", line, err, want)
		}
	}
}

// FuzzSendmailArgs: no command line panics the parser or the message
// preparation.
func FuzzSendmailArgs(f *testing.F) {
	f.Add("-t -i -f a@b.test -F x", "To: a@b.test\r\nBcc: c@d\r\n\r\nhi\r\n")
	f.Add("-oi -fa@b", "no header\n.\nafter")
	f.Fuzz(func(_ *testing.T, line, msg string) {
		a, err := parseSendmailArgs(strings.Fields(line))
		if err == nil {
			_, _ = prepareSendmail(a, []byte(msg), time.Now())
		}
	})
}

// TestSendmailReadsUpToALoneDot: without -i a line of a single "." ends
// the message (LF or CRLF); with -i it is part of the message.
func TestSendmailReadsUpToALoneDot(t *testing.T) {
	const in = "Subject: x\n\nline one\n.\nafter the dot\n"
	got, err := readSendmailInput(strings.NewReader(in), false)
	if err != nil || string(got) != "Subject: x\n\nline one\n" {
		t.Fatalf("without -i: %q, %v", got, err)
	}
	got, err = readSendmailInput(strings.NewReader("a\r\n.\r\nb\r\n"), false)
	if err != nil || string(got) != "a\r\n" {
		t.Fatalf("without -i, CRLF: %q, %v", got, err)
	}
	got, err = readSendmailInput(strings.NewReader(".. stays\n"), false)
	if err != nil || string(got) != ".. stays\n" {
		t.Fatalf("a line of two dots: %q, %v", got, err)
	}
	got, err = readSendmailInput(strings.NewReader(in), true)
	if err != nil || string(got) != in {
		t.Fatalf("with -i: %q, %v", got, err)
	}
	if _, err := readSendmailInput(io.MultiReader(strings.NewReader("a\n"), errReader{}), false); err == nil {
		t.Fatal("a failing standard input is no error")
	} else if sendmailExitCode(&cmdutil.ExitError{Code: exIOErr, Err: err}) != exIOErr {
		t.Fatalf("a failing standard input: exit %d", sendmailExitCode(err))
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestSendmailPreparesTheMessage: -t takes To, Cc and Bcc (each address
// once, the arguments too), the Bcc header is removed with its
// continuation lines and everything else is kept byte for byte; a
// message with no From, Date or Message-ID gets them, with -F's name.
func TestSendmailPreparesTheMessage(t *testing.T) {
	msg := "To: Ann <ann@example.org>, bob@example.org\n" +
		"Bcc: secret@example.org,\n  other@example.org\n" +
		"cc: ANN@example.org\n" +
		"From: App <app@example.org>\nDate: Mon, 2 Jan 2006 15:04:05 +0000\nMessage-ID: <1@x>\n" +
		"Subject: hi\n\nbody\nBcc: not a header\n"
	out, err := prepareSendmail(sendmailArgs{fromHeaders: true, recipients: []string{"arg@example.org"}}, []byte(msg), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	wantTo := []string{"arg@example.org", "ann@example.org", "bob@example.org", "secret@example.org", "other@example.org"}
	if !reflect.DeepEqual(out.to, wantTo) || out.from != "app@example.org" {
		t.Fatalf("envelope %q → %q; want app@example.org → %q", out.from, out.to, wantTo)
	}
	want := "To: Ann <ann@example.org>, bob@example.org\ncc: ANN@example.org\n" +
		"From: App <app@example.org>\nDate: Mon, 2 Jan 2006 15:04:05 +0000\nMessage-ID: <1@x>\n" +
		"Subject: hi\n\nbody\nBcc: not a header\n"
	if got := string(out.data); got != want {
		t.Fatalf("message\n%q\nwant\n%q", out.data, want)
	}

	out, err = prepareSendmail(sendmailArgs{recipients: []string{"a@b.test"}, fullName: "Jürgen Shop", sender: "shop@example.org", senderSet: true},
		[]byte("Subject: bare\n\nhi\n"), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := mail.ReadMessage(strings.NewReader(string(out.data)))
	if err != nil {
		t.Fatal(err)
	}
	from, err := parsed.Header.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Name != "Jürgen Shop" || from[0].Address != "shop@example.org" ||
		parsed.Header.Get("Date") != "Fri, 02 Jan 2026 03:04:05 +0000" || !strings.HasSuffix(parsed.Header.Get("Message-ID"), "@sandview>") ||
		out.from != "shop@example.org" {
		t.Fatalf("made headers %q (%v), envelope from %q", parsed.Header, err, out.from)
	}

	out, err = prepareSendmail(sendmailArgs{recipients: []string{"a@b.test"}}, []byte("no header at all\nsecond line"), time.Now())
	if err != nil || !strings.HasSuffix(string(out.data), ">\r\n\r\nno header at all\nsecond line") || out.from != sendmailDefaultSender {
		t.Fatalf("a message without header: %q from %q, %v", out.data, out.from, err)
	}
}

// TestSendmailDataErrors: no recipients or an unparsable address is a
// data error (exit 65).
func TestSendmailDataErrors(t *testing.T) {
	for name, c := range map[string]struct {
		args sendmailArgs
		msg  string
		want string
	}{
		"no recipients":          {sendmailArgs{}, "To: a@b.test\n\nhi\n", "no recipients"},
		"-t, no address headers": {sendmailArgs{fromHeaders: true}, "Subject: x\n\nhi\n", "no recipients"},
		"-t, a bad To":           {sendmailArgs{fromHeaders: true}, "To: <<<\n\nhi\n", "the To header is unparsable"},
		"a bad argument":         {sendmailArgs{recipients: []string{"not an address"}}, "Subject: x\n\nhi\n", `recipient "not an address"`},
	} {
		_, err := prepareSendmail(c.args, []byte(c.msg), time.Now())
		if err == nil || !strings.Contains(err.Error(), c.want) || sendmailExitCode(err) != exDataErr {
			t.Errorf("%s: %v; want a data error (65) with %q", name, err, c.want)
		}
	}
}

// TestSendmailExitCodes: the server's answers and the network's failures
// map to sendmail's exit codes.
func TestSendmailExitCodes(t *testing.T) {
	for want, err := range map[int]error{
		exTempFail:    &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}},
		exNoUser:      &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}},
		exUnavailable: &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}},
		exDataErr:     dataError{"x"},
		exUsage:       cmdutil.UsageError{Msg: "x"},
	} {
		if got := sendmailExitCode(err); got != want {
			t.Errorf("%v: exit %d, want %d", err, got, want)
		}
	}
	if got := sendmailExitCode(&net.OpError{Op: "dial", Err: errors.New("refused")}); got != exUnavailable {
		t.Errorf("a refused connection: exit %d", got)
	}
	if got := sendmailExitCode(errNoSMTP); got != exUnavailable {
		t.Errorf("no SMTP server: exit %d", got)
	}
}

// TestSendmailCommandLineOfItsName: the binary run as sendmail (a link
// at /usr/sbin/sendmail) runs `sandview sendmail`.
func TestSendmailCommandLineOfItsName(t *testing.T) {
	for _, c := range []struct{ argv, want []string }{
		{[]string{"/usr/sbin/sendmail", "-t", "-i"}, []string{"sendmail", "-t", "-i"}},
		{[]string{"sendmail.exe", "-t"}, []string{"sendmail", "-t"}},
		{[]string{"/usr/bin/sandview", "email", "list"}, []string{"email", "list"}},
		{[]string{"sandview"}, []string{}},
		{nil, nil},
	} {
		if got := commandLine(c.argv); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, want %q", c.argv, got, c.want)
		}
	}
}
