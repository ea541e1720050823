package model

import "testing"

func TestDisplayAddressWritesRFC5322(t *testing.T) {
	for _, c := range []struct {
		in   EventAddress
		want string
	}{
		{EventAddress{Address: "a@example.com"}, "a@example.com"},
		{EventAddress{Address: "first.last+tag@example.com", Name: "First Last"}, `"First Last" <first.last+tag@example.com>`},
		{EventAddress{Address: "odd local@example.com", Name: "Quoted"}, `"Quoted" <"odd local"@example.com>`},
		{EventAddress{Address: `say "hi"@example.com`}, `"say \"hi\""@example.com`},
		{EventAddress{Address: "a..b@example.com"}, `"a..b"@example.com`},
		{EventAddress{Address: ".a@example.com"}, `".a"@example.com`},
		{EventAddress{Address: `"odd local"@example.com`}, `"odd local"@example.com`},
		{EventAddress{Address: "josé@example.com"}, "josé@example.com"},
		{EventAddress{Address: "no-at-sign"}, "no-at-sign"},
		{EventAddress{Address: "a@b", Name: `Back\slash "q"`}, `"Back\\slash \"q\"" <a@b>`},
	} {
		if got := DisplayAddress(c.in); got != c.want {
			t.Errorf("DisplayAddress(%+v) = %s, want %s", c.in, got, c.want)
		}
	}
}

// A quoted local part survives parsing and printing: what is printed
// parses back to the same address.
func TestQuotedLocalPartRoundTrips(t *testing.T) {
	addrs, ok := ParseAddressList(`Quoted <"odd local"@example.com>, "x\"y"@example.com`)
	if !ok || len(addrs) != 2 {
		t.Fatalf("ParseAddressList = %v, %v", addrs, ok)
	}
	shown := DisplayAddresses(addrs)
	if shown[0] != `"Quoted" <"odd local"@example.com>` || shown[1] != `"x\"y"@example.com` {
		t.Fatalf("shown %q", shown)
	}
	again, ok := ParseAddressList(shown[0] + ", " + shown[1])
	if !ok || again[0] != addrs[0] || again[1] != addrs[1] {
		t.Fatalf("printed form parses to %v (ok %v), want %v", again, ok, addrs)
	}
	if !NamesAddress(shown[0], "odd local@example.com") || !NamesAddress(shown[0], `"odd local"@EXAMPLE.com`) {
		t.Fatal("NamesAddress does not see a quoted local part as its address")
	}
}

// Address headers as other programs write them: encoded words in any
// charset, missing commas, empty groups, and lists that do not parse.
func TestParseAddressListAsSendersWriteThem(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want []EventAddress
		ok   bool
	}{
		{`=?ISO-8859-1?Q?J=FCrgen_M=FCller?= <j@example.de>`, []EventAddress{{Address: "j@example.de", Name: "Jürgen Müller"}}, true},
		{`=?shift_jis?B?k/qWe4zq?= <jp@example.jp>`, []EventAddress{{Address: "jp@example.jp", Name: "日本語"}}, true},
		{`"=?UTF-8?B?R3LDvMOfZQ==?=" <g@example.de>`, []EventAddress{{Address: "g@example.de", Name: "Grüße"}}, true},
		{`a@example.com b@example.org`, []EventAddress{{Address: "a@example.com"}, {Address: "b@example.org"}}, true},
		{`A <a@example.com> "B, Team" <b@example.org>`, []EventAddress{{Address: "a@example.com", Name: "A"}, {Address: "b@example.org", Name: "B, Team"}}, true},
		{`undisclosed-recipients:;`, nil, true},
		{`   `, nil, true},
		{`A <a@example.com>, Café, Team <c@example.org>`, []EventAddress{{Address: "a@example.com", Name: "A"}, {Address: "c@example.org", Name: "Café, Team"}}, false},
	} {
		got, ok := ParseAddressList(c.raw)
		if ok != c.ok || len(got) != len(c.want) {
			t.Errorf("ParseAddressList(%q) = %+v, %v; want %+v, %v", c.raw, got, ok, c.want, c.ok)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("ParseAddressList(%q)[%d] = %+v, want %+v", c.raw, i, got[i], c.want[i])
			}
		}
	}
}
