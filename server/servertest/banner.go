package servertest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Banner is what a `sandview serve` process prints about where it
// listens: the HTTP API's base URL and the SMTP address.
type Banner struct {
	API  string // "http://127.0.0.1:PORT"
	SMTP string // "127.0.0.1:PORT"
}

// ReadBanner reads a `sandview serve` process's standard output until
// its banner has named both addresses (the SMTP line comes last, once
// both listeners accept connections), then discards the rest of the
// output in the background so that the process never blocks writing it.
func ReadBanner(out io.Reader) (Banner, error) {
	var b Banner
	lines := bufio.NewScanner(out)
	for (b.API == "" || b.SMTP == "") && lines.Scan() {
		switch fields := strings.Fields(lines.Text()); {
		case len(fields) == 3 && fields[0] == "HTTP" && fields[1] == "API":
			b.API = fields[2]
		case len(fields) == 2 && fields[0] == "SMTP":
			b.SMTP = fields[1]
		}
	}
	if b.API == "" || b.SMTP == "" {
		err := lines.Err()
		if err == nil {
			err = errors.New("the output ended")
		}
		return b, fmt.Errorf("sandview serve printed no HTTP and SMTP addresses: %w", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return b, nil
}

// StartProcess starts cmd (a `sandview serve` command line, its standard
// error going to the test's unless set) and waits for its banner. The
// process is killed when the test ends, unless it has ended by then.
func StartProcess(t testing.TB, cmd *exec.Cmd) Banner {
	t.Helper()
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	b, err := ReadBanner(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
