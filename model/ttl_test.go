package model

import (
	"testing"
	"time"
)

func TestParseTTL(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", time.Hour, true},
		{" 3600 ", time.Hour, true},
		{"1h30m", 90 * time.Minute, true},
		{"60", time.Minute, true},
		{"168h", 168 * time.Hour, true},
		{"59", 0, false},
		{"30s", 0, false},
		{"169h", 0, false},
		{"200h", 0, false},
		{"1m0.5s", 0, false},
		{"-1h", 0, false},
		{"soon", 0, false},
	} {
		got, err := ParseTTL(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseTTL(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
