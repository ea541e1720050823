package mail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sandview/tui/tuitest"
)

func TestSafeBaseName(t *testing.T) {
	cases := map[string]string{
		"../../etc/passwd":                "passwd",
		`C:\Windows\evil.exe`:             "evil.exe",
		"report.pdf":                      "report.pdf",
		"":                                "attachment",
		"..":                              "attachment",
		"a\x1b[2Jb\u202e.txt":             "ab.txt",
		"what?<>|*.txt":                   "what_____.txt",
		" .hidden. ":                      "hidden",
		strings.Repeat("é", 300) + ".pdf": strings.Repeat("é", 98) + ".pdf",
	}
	for in, want := range cases {
		if got := safeBaseName(in, "attachment"); got != want {
			t.Errorf("safeBaseName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSaveUniqueNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	p1, err := saveUnique(dir, "../a.txt", "x", []byte("one"), 0o644)
	if err != nil || filepath.Base(p1) != "a (1).txt" {
		t.Fatalf("first: %s %v", p1, err)
	}
	p2, err := saveUnique(dir, "a.txt", "x", []byte("two"), 0o644)
	if err != nil || filepath.Base(p2) != "a (2).txt" {
		t.Fatalf("second: %s %v", p2, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "keep" {
		t.Fatal("existing file overwritten")
	}
	if _, err := saveUnique(filepath.Join(dir, "a.txt"), "b", "x", nil, 0o644); err == nil {
		t.Fatal("saving into a file did not fail")
	}
}

func TestSanitizeEmailCleansEveryField(t *testing.T) {
	for _, e := range tuitest.Emails() {
		e.HasContent = true
		s := sanitizeEmail(e)
		fields := []string{s.From, s.Subject, s.Text, s.HTML, s.Problem, strings.Join(s.To, ""), strings.Join(s.Links, "")}
		for k, v := range s.Headers {
			fields = append(fields, k, v)
		}
		for _, a := range s.Attachments {
			fields = append(fields, a.Filename, a.ContentType)
		}
		for _, f := range fields {
			tuitest.AssertNoControls(t, strings.ReplaceAll(f, "\n", ""))
		}
	}
}

func TestOpenableLink(t *testing.T) {
	for link, want := range map[string]bool{
		"https://example.com": true, "http://x.test/a": true, "mailto:a@b.test": true,
		"javascript:alert(1)": false, "file:///etc/passwd": false, "-https://x": false, "https://": false, "": false,
	} {
		if got := openableLink(link); got != want {
			t.Errorf("openableLink(%q) = %v", link, got)
		}
	}
}
