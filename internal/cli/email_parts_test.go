package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sandview/client/smtpsend"
)

// TestCLIEmailParts: attachments are listed and saved under safe names
// that never overwrite, links print one a line, and the HTML part opens in
// the browser ($BROWSER) from a private file that blocks remote content.
func TestCLIEmailParts(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	msg := "From: a@example.org\r\nTo: " + address + "\r\nSubject: parts\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Reset: <a href=\"https://example.org/reset?t=1\">here</a> <img src=\"https://tracker.example/p.gif\"></p>\r\n" +
		"--b\r\nContent-Type: text/plain; name=x\r\nContent-Disposition: attachment; filename=\"../.evil\u202e.txt\"\r\n\r\nfirst\r\n" +
		"--b\r\nContent-Type: text/csv\r\nContent-Disposition: attachment; filename=\"report.csv\"\r\n\r\na,b\r\n--b--\r\n"
	if err := smtpsend.Send(context.Background(), h.srv.SMTPAddr(), "a@example.org", []string{address}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	h.must("wait", "--subject", "^parts$", "--timeout", "20s")
	id := decodeJSON[[]emailView](t, h.must("email", "list", "--json"))[0].ID

	listed := h.must("email", "attachments", id).stdout
	if !strings.Contains(listed, "report.csv") || !strings.HasPrefix(listed, "N  FILENAME") || strings.Contains(listed, "\u202e") {
		t.Fatalf("attachments listed:\n%s", listed)
	}
	dir := filepath.Join(t.TempDir(), "new") // made by the first save
	h.must("email", "attachments", id, "--save", "2", "--dir", dir)
	h.must("email", "attachments", id, "--all", "--dir", dir)
	names := []string{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, "|") != "evil.txt|report (1).csv|report.csv" {
		t.Fatalf("saved %q, want safe names that never overwrite", names)
	}
	if r := h.run("email", "attachments", id, "--save", "3"); r.code != exitUsage || !strings.Contains(r.stderr, "2 attachment") {
		t.Fatalf("--save 3: exit %d, %q", r.code, r.stderr)
	}

	if links := h.must("email", "links", id).stdout; links != "https://example.org/reset?t=1\nhttps://tracker.example/p.gif\n" {
		t.Fatalf("links %q", links)
	}

	// The browser keeps a copy and the modes of the file it was handed:
	// the file itself is removed once the browser has had it.
	browser := filepath.Join(t.TempDir(), "browser")
	got := browser + ".got"
	script := "#!/bin/sh\nprintf '%s' \"$1\" > " + got + "\ncp \"$1\" " + got + ".page\nstat -c %a \"$1\" \"$(dirname \"$1\")\" > " + got + ".modes\n"
	if err := os.WriteFile(browser, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	r := h.withEnv("BROWSER="+browser, "TMPDIR="+tmp).run("email", "open", id)
	path, _, _ := strings.Cut(strings.TrimPrefix(r.stdout, "opened "), " (removed in")
	if opened, _ := os.ReadFile(got); r.code != 0 || string(opened) != path {
		t.Fatalf("email open: exit %d, %q %q; the browser got %q", r.code, r.stdout, r.stderr, opened)
	}
	if filepath.Dir(path) != filepath.Join(h.home, "opened") {
		t.Fatalf("opened %s: want a file under $SANDVIEW_HOME/opened", path)
	}
	if modes, _ := os.ReadFile(got + ".modes"); strings.Join(strings.Fields(string(modes)), " ") != "600 700" {
		t.Fatalf("the opened file and its directory had modes %q, want 600 700", modes)
	}
	page, _ := os.ReadFile(got + ".page")
	if !strings.Contains(string(page), `Content-Security-Policy" content="default-src &#39;none&#39;`) || !strings.Contains(string(page), "Reset:") {
		t.Fatalf("opened page:\n%s", page)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the decrypted page %s is still there after email open ended (%v)", path, err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("email open left %d files in $TMPDIR", len(left))
	}
	// No browser: the error says the way out.
	r = h.withEnv("BROWSER="+browser+".missing", "TMPDIR="+t.TempDir()).run("email", "open", id)
	if r.code == 0 || !strings.Contains(r.stderr, "not found: set $BROWSER") || !strings.Contains(r.stderr, "copy the address") {
		t.Fatalf("email open without a browser: exit %d, %q", r.code, r.stderr)
	}
}
