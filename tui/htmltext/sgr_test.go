package htmltext

import (
	"bytes"
	"testing"
)

// TestSGRFollowsParameters follows SGR parameters as glamour and other
// writers put them, and writes the style they leave as one sequence.
func TestSGRFollowsParameters(t *testing.T) {
	for _, c := range []struct{ params, want string }{
		{"", ""},
		{"0", ""},
		{"38;2;1;2;3", "\x1b[38;2;1;2;3m"},
		{"38:2:1:2:3", "\x1b[38;2;1;2;3m"},
		{"38;2;1;;2;3", "\x1b[38;2;1;2;3m"},
		{"1;38;5;208;4", "\x1b[1;4;38;5;208m"},
		{"48;5;17;38;2;125;156;255;4;1", "\x1b[1;4;38;2;125;156;255;48;5;17m"},
		{"48;2;10;20", ""},
		{"1;2;3;4;7;9;22;23;24;27;29;31;41;1;3;4;7;9;39;49", "\x1b[1;3;4;7;9m"},
		{"31;42;2", "\x1b[2;31;42m"},
	} {
		var s sgr
		s.bold = true
		s.apply("0")
		s.apply(c.params)
		var b bytes.Buffer
		s.writeSequence(&b)
		if b.String() != c.want {
			t.Errorf("%q: %q, want %q", c.params, b.String(), c.want)
		}
	}
}
