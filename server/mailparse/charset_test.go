package mailparse

import (
	"encoding/base64"
	"testing"

	"golang.org/x/text/encoding/charmap"
)

func TestParseDecodesEncodedWordsInSubjectFromAndHeaders(t *testing.T) {
	koi8, err := charmap.KOI8R.NewEncoder().String("Привет")
	if err != nil {
		t.Fatalf("encode KOI8-R: %v", err)
	}
	raw := crlf(`From: =?UTF-8?B?` + base64.StdEncoding.EncodeToString([]byte("Zoë Ünal")) + `?= <zoe@example.org>
To: =?ISO-8859-1?Q?J=F6rg?= <jorg@sandbox.test>
Subject: =?UTF-8?B?` + base64.StdEncoding.EncodeToString([]byte("Grüße aus Köln ☕")) + `?=
X-Q-Latin1: =?ISO-8859-1?Q?Caf=E9_cr=E8me?=
X-Cp1252: =?windows-1252?Q?=93quoted=94_=80?=
X-Koi8: =?koi8-r?B?` + base64.StdEncoding.EncodeToString([]byte(koi8)) + `?=
X-Adjacent: =?UTF-8?Q?a?= =?UTF-8?Q?b?=
X-Unknown-Charset: =?x-no-such?Q?plain?=
X-Raw-Latin1: caf` + "\xe9" + `
Content-Type: text/plain; charset=utf-8

hi
`)
	m := Parse(raw)
	assertValidUTF8(t, m)

	if m.Subject != "Grüße aus Köln ☕" {
		t.Errorf("Subject = %q", m.Subject)
	}
	if m.FromName != "Zoë Ünal" || m.From != `"Zoë Ünal" <zoe@example.org>` {
		t.Errorf("From = %q (name %q)", m.From, m.FromName)
	}
	if len(m.ToAddresses) != 1 || m.ToAddresses[0].Name != "Jörg" {
		t.Errorf("ToAddresses = %+v", m.ToAddresses)
	}
	for name, want := range map[string]string{
		"subject":           "Grüße aus Köln ☕",
		"from":              "Zoë Ünal <zoe@example.org>",
		"x-q-latin1":        "Café crème",
		"x-cp1252":          "“quoted” €",
		"x-koi8":            "Привет",
		"x-adjacent":        "ab",
		"x-unknown-charset": "plain",
		"x-raw-latin1":      "café",
	} {
		if got := m.Content.Headers[name]; got != want {
			t.Errorf("header %s = %q, want %q", name, got, want)
		}
	}
}

func TestParseConvertsBodyCharsets(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string
	}{
		{
			name: "UTF-8 8bit",
			raw:  "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\nGrüße ☕ – ok",
			want: "Grüße ☕ – ok",
		},
		{
			name: "ISO-8859-1 quoted-printable",
			raw:  "Content-Type: text/plain; charset=ISO-8859-1\nContent-Transfer-Encoding: quoted-printable\n\nCaf=E9 cr=E8me =\nbr=FBl=E9e",
			want: "Café crème brûlée",
		},
		{
			name: "windows-1252 8bit",
			raw:  "Content-Type: text/plain; charset=windows-1252\n\n\x93Hi\x94 \x80 5",
			want: "“Hi” € 5",
		},
		{
			name: "ISO-8859-1 HTML base64",
			raw: "Content-Type: text/html; charset=iso-8859-1\nContent-Transfer-Encoding: base64\n\n" +
				base64.StdEncoding.EncodeToString([]byte("<p>Gr\xfc\xdfe</p>")),
			want: "<p>Grüße</p>",
		},
		{
			name: "undeclared 8-bit bytes",
			raw:  "Content-Type: text/plain\n\nna\xefve",
			want: "naïve",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Parse(crlf("From: a@example.org\n" + tt.raw))
			assertValidUTF8(t, m)
			got := m.Content.Text
			if m.Content.HTML != "" {
				got = m.Content.HTML
			}
			if got != tt.want {
				t.Errorf("body = %q, want %q (warnings %q)", got, tt.want, m.Warnings)
			}
		})
	}
}
