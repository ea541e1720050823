package crypto

import (
	"strings"
	"testing"
)

func TestConstantTimeEqual(t *testing.T) {
	for n := range 20 {
		a := strings.Repeat("x", n)
		if !constantTimeEqual(a, strings.Clone(a)) {
			t.Errorf("length %d: equal strings reported different", n)
		}
		for i := range n {
			b := a[:i] + "y" + a[i+1:]
			if constantTimeEqual(a, b) {
				t.Errorf("length %d: difference at %d not detected", n, i)
			}
		}
		if constantTimeEqual(a, a+"x") {
			t.Errorf("length %d: different lengths reported equal", n)
		}
	}
}
