package crypto

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestBase64URLRoundTrip(t *testing.T) {
	long := make([]byte, 1000)
	for i := range long {
		long[i] = byte(i * 7)
	}
	tests := []struct {
		name string
		in   []byte
		want string // expected encoding, "" to skip the comparison
	}{
		{"empty", []byte{}, ""},
		{"one byte", []byte{0}, "AA"},
		{"two bytes", []byte{0, 0}, "AAA"},
		{"three bytes", []byte{0, 0, 0}, "AAAA"},
		{"url alphabet", []byte{0xfb, 0xff, 0xbf}, "-_-_"},
		{"text", []byte("hello?>"), "aGVsbG8_Pg"},
		{"long", long, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := EncodeBase64URL(tt.in)
			if tt.want != "" && enc != tt.want {
				t.Errorf("EncodeBase64URL = %q, want %q", enc, tt.want)
			}
			if strings.ContainsAny(enc, "=+/") {
				t.Errorf("EncodeBase64URL = %q contains padding or standard-alphabet characters", enc)
			}
			dec, err := DecodeBase64URL(enc)
			if err != nil {
				t.Fatalf("DecodeBase64URL(%q): %v", enc, err)
			}
			if !bytes.Equal(dec, tt.in) {
				t.Errorf("round trip = %x, want %x", dec, tt.in)
			}
		})
	}
}

func TestBase64URLUsesURLAlphabet(t *testing.T) {
	all := make([]byte, 256*3)
	for i := range all {
		all[i] = byte(i)
	}
	enc := EncodeBase64URL(all)
	if !strings.Contains(enc, "-") || !strings.Contains(enc, "_") {
		t.Errorf("encoding of all byte values lacks '-' or '_': %q", enc)
	}
}

func TestDecodeBase64URLRejects(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"plus", "ab+c"},
		{"slash", "ab/c"},
		{"padding", "abc="},
		{"double padding", "ab=="},
		{"space", "ab c"},
		{"tab", "ab\tc"},
		{"newline", "ab\ncd"},
		{"carriage return", "ab\rcd"},
		{"trailing newline", "abcd\n"},
		{"other character", "ab!c"},
		{"non-ASCII", "abcé"},
		{"impossible length", "abcde"},
		{"non-zero trailing bits", "AB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := DecodeBase64URL(tt.in)
			if !errors.Is(err, ErrInvalidBase64URL) {
				t.Errorf("DecodeBase64URL(%q) = %x, %v; want ErrInvalidBase64URL", tt.in, b, err)
			}
		})
	}
}

func FuzzDecodeBase64URL(f *testing.F) {
	for _, s := range []string{"", "AA", "-_-_", "ab+c", "abc=", "ab\ncd", "AB", "aGVsbG8_Pg"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Any input as bytes survives a round trip.
		back, err := DecodeBase64URL(EncodeBase64URL([]byte(s)))
		if err != nil || !bytes.Equal(back, []byte(s)) {
			t.Fatalf("round trip of %q = %q, %v", s, back, err)
		}
		// Strict decoding is canonical: whatever decodes re-encodes to the input.
		dec, err := DecodeBase64URL(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidBase64URL) {
				t.Fatalf("DecodeBase64URL(%q) error %v does not wrap ErrInvalidBase64URL", s, err)
			}
			return
		}
		if enc := EncodeBase64URL(dec); enc != s {
			t.Fatalf("DecodeBase64URL(%q) re-encodes to %q", s, enc)
		}
	})
}
