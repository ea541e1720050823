package mailparse

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestScratchNesting(t *testing.T) {
	for _, n := range []int{100, 500, 1000, 2000} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n", i, i)
		}
		b.WriteString("Content-Type: text/plain\n\n" + strings.Repeat("x", 10000))
		start := time.Now()
		m := Parse([]byte(b.String()))
		t.Logf("%d: %v warnings=%d text=%d", n, time.Since(start), len(m.Warnings), len(m.Content.Text))
	}
}
