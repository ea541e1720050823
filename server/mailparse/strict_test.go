package mailparse

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// wellFormedCorpus holds messages the strict parser must accept.
func wellFormedCorpus() map[string][]byte {
	return map[string][]byte{
		"plain":           crlf(plainMessage),
		"multipart":       crlf(multipartMessage),
		"bench":           crlf(benchMessage),
		"LF line endings": []byte(strings.ReplaceAll(multipartMessage, "\r\n", "\n")),
		"preamble, epilogue, padding and a nested message": crlf(`From: "Ann" <ann@example.org>
To: bob@sandbox.test
Subject: =?UTF-8?Q?nested_=E2=9C=93?=
Content-Type: multipart/mixed; boundary=b1

preamble text
--b1   
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

caf=E9 first
--b1
Content-Type: text/plain
Content-Disposition: inline; filename="notes.txt"

second text, inline with a filename
--b1
Content-Type: message/rfc822

From: inner@example.org
Subject: inner

inner body
--b1
Content-Transfer-Encoding: 7bit

a part without a content type
--b1--
epilogue text
`),
		"single-part HTML with meta charset": crlf("From: a@example.org\nContent-Type: text/html\n\n" +
			`<html><head><meta charset="windows-1252"></head><body>` + "\x93hi\x94</body></html>"),
		"single-part PDF": crlf("From: a@example.org\nContent-Type: application/pdf; name=\"=?UTF-8?Q?r=C3=A9sum=C3=A9.pdf?=\"\n" +
			"Content-Transfer-Encoding: base64\n\nJVBERi0xLjQgdGlueSB0ZXN0IGZpbGUK\n"),
	}
}

func TestStrictAndTolerantParsersAgree(t *testing.T) {
	for name, raw := range wellFormedCorpus() {
		t.Run(name, func(t *testing.T) {
			root, ok := parseStrict(raw)
			if !ok {
				t.Fatal("the strict parser rejected a well-formed message")
			}
			strict := newMessage()
			strict.fillFromTree(root, raw)
			tolerant, problem := parseTolerant(raw)
			if tolerant == nil {
				t.Fatalf("tolerant parser failed: %s", problem)
			}
			if len(strict.Warnings) != 0 {
				t.Errorf("strict warnings: %q", strict.Warnings)
			}
			strict.Warnings, tolerant.Warnings = nil, nil
			if !reflect.DeepEqual(strict, tolerant) {
				t.Errorf("parsers disagree\nstrict:   %+v\ntolerant: %+v", strict, tolerant)
			}
		})
	}
}

func TestParseNestedCorpusMessage(t *testing.T) {
	m := Parse(wellFormedCorpus()["preamble, epilogue, padding and a nested message"])
	wantText := "café first\n--\nsecond text, inline with a filename\n--\na part without a content type"
	if m.Content.Text != wantText {
		t.Errorf("Text = %q, want %q", m.Content.Text, wantText)
	}
	var names []string
	for _, a := range m.Content.Attachments {
		names = append(names, a.ContentType+":"+a.Filename)
	}
	if want := []string{"text/plain:notes.txt", "message/rfc822:"}; !slices.Equal(names, want) {
		t.Errorf("attachments = %q, want %q", names, want)
	}
	if m.Subject != "nested ✓" {
		t.Errorf("Subject = %q", m.Subject)
	}
}

func TestStrictParserRejectsIrregularMessages(t *testing.T) {
	for name, raw := range map[string]string{
		"unclosed boundary":        "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nx\n",
		"boundary never used":      "Content-Type: multipart/mixed; boundary=b\n\n--other\n\nx\n--other--\n",
		"header line without name": "From: a@example.org\nnot a header\n\nx\n",
		"bad media type":           "Content-Type: text/plain; charset=\"unterminated\n\nx\n",
		"no end of header":         "From: a@example.org\nSubject: x",
		"bad part header":          "Content-Type: multipart/mixed; boundary=b\n\n--b\nno colon here\n\nx\n--b--\n",
	} {
		if _, ok := parseStrict(crlf(raw)); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	deep := strings.Repeat("Content-Type: multipart/mixed; boundary=d\n\n--d\n", maxStrictDepth+2) + "\nx\n"
	if _, ok := parseStrict(crlf(deep)); ok {
		t.Error("accepted nesting deeper than maxStrictDepth")
	}
}

func TestSplitMultipart(t *testing.T) {
	body := "pre\r\n--b\r\nA: 1\r\n\r\none\r\n--bX not a delimiter\r\n--b \t\r\n\r\ntwo\n\n--b--\r\nepilogue --b\r\n"
	parts, ok := splitMultipart([]byte(body), "b")
	if !ok {
		t.Fatal("not split")
	}
	want := []string{"A: 1\r\n\r\none\r\n--bX not a delimiter", "\r\ntwo\n"}
	if len(parts) != len(want) {
		t.Fatalf("parts = %q, want %q", parts, want)
	}
	for i := range want {
		if string(parts[i]) != want[i] {
			t.Errorf("part %d = %q, want %q", i, parts[i], want[i])
		}
	}
	if _, ok := splitMultipart([]byte("--b\r\nx\r\n--b\r\n"), "b"); ok {
		t.Error("split a body without a closing delimiter")
	}
}

func TestDecodeQuotedPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"caf=E9 =C3=A9t=c3=a9":          "caf\xe9 été",
		"soft=\r\nbreak\r\nnext":        "softbreak\r\nnext",
		"trailing spaces   \nkept=20\n": "trailing spaces\nkept \n",
		"bad =ZZ and end =":             "bad =ZZ and end ",
		"lone = sign = here":            "lone = sign = here",
	} {
		if got := string(decodeQuotedPrintable([]byte(in))); got != want {
			t.Errorf("decodeQuotedPrintable(%q) = %q, want %q", in, got, want)
		}
	}
}
