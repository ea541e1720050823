package mailparse

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseBrokenBoundaryKeepsBodyAsText(t *testing.T) {
	raw := crlf(`From: a@example.org
Subject: broken
Content-Type: multipart/mixed; boundary="declared"

--other
Content-Type: text/plain

hello there
--other--
`)
	m := Parse(raw)
	assertValidUTF8(t, m)
	if !strings.Contains(m.Content.Text, "hello there") {
		t.Errorf("Text = %q, want the body kept", m.Content.Text)
	}
	if m.Subject != "broken" || m.FromAddress != "a@example.org" {
		t.Errorf("headers lost: subject %q from %q", m.Subject, m.FromAddress)
	}
	if len(m.Warnings) == 0 {
		t.Error("no warning for a broken boundary")
	}
}

func TestParseUnclosedBoundaryAndBadBase64(t *testing.T) {
	raw := crlf(`From: a@example.org
Content-Type: multipart/mixed; boundary="XX"

--XX
Content-Type: text/plain

hello there
--XX
Content-Type: application/pdf; name=a.pdf
Content-Transfer-Encoding: base64

SGVsbG8gd29y=bGQ*&
`)
	m := Parse(raw)
	if m.Content.Text != "hello there" {
		t.Errorf("Text = %q", m.Content.Text)
	}
	if len(m.Content.Attachments) != 1 || m.Content.Attachments[0].Filename != "a.pdf" {
		t.Fatalf("Attachments = %+v", m.Content.Attachments)
	}
	if got := string(m.Content.Attachments[0].Content); !strings.HasPrefix(got, "Hello wor") {
		t.Errorf("attachment content = %q, want what decoded kept", got)
	}
	if !hasWarning(m, "Boundary") || !hasWarning(m, "base64") {
		t.Errorf("Warnings = %q, want boundary and base64 problems", m.Warnings)
	}
}

func TestParseMissingAndBadHeaders(t *testing.T) {
	t.Run("no From", func(t *testing.T) {
		m := Parse(crlf("Subject: hi\n\nbody\n"))
		if m.From != "" || m.FromAddress != "" || !hasWarning(m, "missing From") {
			t.Errorf("From %q, warnings %q", m.From, m.Warnings)
		}
		if m.Content.Text != "body\r\n" || m.Subject != "hi" {
			t.Errorf("Text %q Subject %q", m.Content.Text, m.Subject)
		}
		if !m.Date.IsZero() || m.MessageID != "" {
			t.Errorf("Date %v MessageID %q, want zero values", m.Date, m.MessageID)
		}
	})
	t.Run("empty header section", func(t *testing.T) {
		m := Parse(crlf("\nonly a body\n"))
		if m.Content.Text != "only a body\r\n" || !hasWarning(m, "no header section") {
			t.Errorf("Text %q, warnings %q", m.Content.Text, m.Warnings)
		}
	})
	t.Run("unparseable From and Date", func(t *testing.T) {
		m := Parse(crlf("From: not really an <address\nDate: yesterday-ish\n\nx\n"))
		if m.From != "not really an <address" || m.FromAddress != "" {
			t.Errorf("From %q FromAddress %q", m.From, m.FromAddress)
		}
		if !m.Date.IsZero() || !hasWarning(m, "Date") || !hasWarning(m, "From header") {
			t.Errorf("Date %v, warnings %q", m.Date, m.Warnings)
		}
	})
	t.Run("salvaged To", func(t *testing.T) {
		m := Parse(crlf("From: a@example.org\nTo: Bob <bob@sandbox.test>>, <<carol@sandbox.test\n\nx\n"))
		if !hasWarning(m, "To header") {
			t.Errorf("warnings %q", m.Warnings)
		}
		if len(m.ToAddresses) == 0 || m.ToAddresses[0].Address != "bob@sandbox.test" {
			t.Errorf("ToAddresses = %+v, want bob salvaged", m.ToAddresses)
		}
	})
	t.Run("a line without indent is not a continuation", func(t *testing.T) {
		// RFC 5322 2.2.3: only CRLF WSP folds; "second line" is a malformed
		// field, shown as such in the Headers tab, not part of the subject.
		m := Parse(crlf("From: a@example.org\nSubject: first\nsecond line\n\nbody\n"))
		if m.Subject != "first" || m.Content.Text != "body\r\n" || len(m.Warnings) == 0 {
			t.Errorf("Subject %q Text %q warnings %q", m.Subject, m.Content.Text, m.Warnings)
		}
	})
	t.Run("junk content type", func(t *testing.T) {
		m := Parse(crlf("From: a@example.org\nContent-Type: ;;;/=\n\nbody\n"))
		kept := m.Content.Text
		for _, a := range m.Content.Attachments {
			kept += string(a.Content)
		}
		if !strings.Contains(kept, "body") {
			t.Errorf("body lost: text %q attachments %+v", m.Content.Text, m.Content.Attachments)
		}
	})
}

func TestParseManyUnclosedPartsKeepsBodyAsText(t *testing.T) {
	raw := "From: a@example.org\nContent-Type: multipart/mixed; boundary=b\n\n" +
		strings.Repeat("--b\n\npart\n", maxTolerantDelimiters+1)
	m := Parse(crlf(raw))
	if !hasWarning(m, "too many MIME delimiters") {
		t.Errorf("warnings = %q", m.Warnings)
	}
	if m.FromAddress != "a@example.org" || strings.Count(m.Content.Text, "part") != maxTolerantDelimiters+1 {
		t.Errorf("From %q, text holds %d parts", m.FromAddress, strings.Count(m.Content.Text, "part"))
	}
}

func TestParseDeeplyNestedUnclosedMultipartsKeepsBodyAsText(t *testing.T) {
	// enmime's work doubles with every unclosed level; 40 levels must not
	// reach it.
	var raw strings.Builder
	raw.WriteString("From: a@example.org\n")
	for i := range 40 {
		fmt.Fprintf(&raw, "Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n", i, i)
	}
	raw.WriteString("Content-Type: text/plain\n\ninnermost text\n")
	m := Parse(crlf(raw.String()))
	if !hasWarning(m, "unclosed MIME boundaries") || !strings.Contains(m.Content.Text, "innermost text") {
		t.Errorf("warnings %q, text %q", m.Warnings, m.Content.Text)
	}
}

func TestTooCostlyToRepair(t *testing.T) {
	closedAndOpen := "Content-Type: multipart/mixed; boundary=\"outer\"\n\n--outer\n" +
		"Content-Type: multipart/alternative; boundary=inner\n\n--inner\n\nx\n--outer--\n"
	if problem := tooCostlyToRepair([]byte(closedAndOpen)); problem != "" {
		t.Errorf("one unclosed boundary refused: %s", problem)
	}
	declared, _ := declaredBoundaries([]byte(closedAndOpen))
	closed := closedBoundaries([]byte(closedAndOpen))
	if !declared["outer"] || !declared["inner"] || len(declared) != 2 || !closed["outer"] || closed["inner"] {
		t.Errorf("declared %v closed %v", declared, closed)
	}
	var many strings.Builder
	for i := range maxTolerantBoundaries + 1 {
		fmt.Fprintf(&many, "Content-Type: multipart/mixed; boundary=b%d\n--b%d--\n", i, i)
	}
	if problem := tooCostlyToRepair([]byte(many.String())); !strings.Contains(problem, "too many MIME boundaries") {
		t.Errorf("problem = %q", problem)
	}
}

func TestParseBinaryJunk(t *testing.T) {
	junk := make([]byte, 4096)
	rng := rand.New(rand.NewChaCha8([32]byte{7}))
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	junk[0] = 0xff // no header line

	m := Parse(junk)
	assertValidUTF8(t, m)
	if len(m.Warnings) == 0 {
		t.Error("no warning for binary junk")
	}
	if m.Content.Text != validUTF8(junk) {
		t.Error("Text is not the junk made valid UTF-8")
	}
	if n := utf8.RuneCountInString(m.Content.Text); n < len(junk)/4 {
		t.Errorf("Text holds %d runes for %d junk bytes: content lost", n, len(junk))
	}

	// Junk after a plausible first header line.
	withHeader := append([]byte("Subject: junk follows\r\n"), junk...)
	m = Parse(withHeader)
	assertValidUTF8(t, m)
	if m.Subject == "" && len(m.Warnings) == 0 {
		t.Error("neither a subject nor a warning for junk after a header")
	}
}

func TestValidUTF8KeepsEveryByte(t *testing.T) {
	in := []byte("ok \xe9t\xe9 \xff\xfe ✓")
	want := "ok été ÿþ ✓"
	if got := validUTF8(in); got != want {
		t.Errorf("validUTF8 = %q, want %q", got, want)
	}
}

func TestParseEmptyInput(t *testing.T) {
	for _, raw := range [][]byte{nil, {}, []byte("\r\n\r\n"), []byte("   ")} {
		m := Parse(raw)
		if m == nil {
			t.Fatalf("Parse(%q) = nil", raw)
		}
		if !hasWarning(m, "empty message") {
			t.Errorf("Parse(%q) warnings = %q", raw, m.Warnings)
		}
		if m.Content.Headers == nil || m.Content.Attachments == nil || m.Content.Links == nil || m.To == nil {
			t.Errorf("Parse(%q) left nil collections: %+v", raw, m)
		}
	}
}

func TestRecoveredTurnsPanicIntoProblem(t *testing.T) {
	m, problem := recovered(func() (*Message, string) { panic("boom") })
	if m != nil || !strings.Contains(problem, "boom") {
		t.Errorf("recovered = %v, %q", m, problem)
	}
}

func TestParseLargeAttachment(t *testing.T) {
	content := make([]byte, 5<<20)
	rng := rand.New(rand.NewChaCha8([32]byte{5}))
	for i := range content {
		content[i] = byte(rng.Uint32())
	}
	encoded := base64.StdEncoding.EncodeToString(content)
	var body strings.Builder
	for len(encoded) > 76 {
		body.WriteString(encoded[:76] + "\r\n")
		encoded = encoded[76:]
	}
	body.WriteString(encoded + "\r\n")
	raw := crlf(`From: a@example.org
Content-Type: multipart/mixed; boundary="b"

--b
Content-Type: text/plain

see attached
--b
Content-Type: application/octet-stream
Content-Disposition: attachment; filename="big.bin"
Content-Transfer-Encoding: base64

`)
	raw = append(raw, body.String()...)
	raw = append(raw, "--b--\r\n"...)

	m := Parse(raw)
	if len(m.Warnings) != 0 {
		t.Errorf("warnings: %q", m.Warnings)
	}
	if len(m.Content.Attachments) != 1 {
		t.Fatalf("Attachments = %d, want 1", len(m.Content.Attachments))
	}
	a := m.Content.Attachments[0]
	sum := sha256.Sum256(content)
	if a.Size != int64(len(content)) || !bytes.Equal(a.Content, content) || a.Checksum != hexString(sum[:]) {
		t.Errorf("attachment size %d checksum %s, want %d %x", a.Size, a.Checksum, len(content), sum)
	}
	// Parse's result does not alias its input.
	for i := range raw {
		raw[i] = 'x'
	}
	if !bytes.Equal(a.Content, content) || m.Content.Text != "see attached" {
		t.Error("result changed when the input buffer was overwritten")
	}
}
