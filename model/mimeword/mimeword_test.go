package mimeword

import "testing"

func TestDecode(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                    "plain",
		"=?UTF-8?B?R3LDvMOfZQ==?=": "Grüße",
		"=?ISO-8859-1?Q?J=FCrgen?= <j@x.example>": "Jürgen <j@x.example>",
		"=?shift_jis?B?k/qWe4zq?=":                "日本語",
		"=?x-unknown?Q?abc?=":                     "abc",
		"=?UTF-8?B?broken":                        "=?UTF-8?B?broken",
	} {
		if got := Decode(in); got != want {
			t.Errorf("Decode(%q) = %q, want %q", in, got, want)
		}
	}
}
