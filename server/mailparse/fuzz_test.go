package mailparse

import (
	"testing"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	f.Add(crlf(plainMessage))
	f.Add(crlf(multipartMessage))
	f.Add(crlf(benchMessage))
	f.Add([]byte("Subject: =?utf-8?B?////?=\r\nContent-Type: multipart/mixed; boundary=\r\n\r\n--\r\n"))
	f.Add([]byte("\xff\xfe\x00junk"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := Parse(raw)
		if m == nil {
			t.Fatal("Parse returned nil")
		}
		assertValidUTF8(t, m)
		if len(m.Content.Links) > maxLinks {
			t.Errorf("%d links, over the cap", len(m.Content.Links))
		}
		for _, l := range ExtractLinks(string(raw), string(raw)) {
			if !utf8.ValidString(l) && utf8.ValidString(string(raw)) {
				t.Errorf("link %q is not valid UTF-8 though the input is", l)
			}
		}
	})
}
