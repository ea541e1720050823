package termimage

import (
	"image/png"
	"os"
	"strings"
	"testing"
)

// BenchmarkEncodeNewsletter encodes internal/htmlrender's 1024 px
// newsletter golden (a real Chromium render) for a pane of 100x40 cells
// of 10x20 pixels, per protocol, and reports the bytes written.
func BenchmarkEncodeNewsletter(b *testing.B) {
	f, err := os.Open("../../internal/htmlrender/testdata/newsletter-1024-light.png")
	if err != nil {
		b.Fatal(err)
	}
	src, err := png.Decode(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	cell := CellSize{W: 10, H: 20}
	win := Window(Scale(src, 100*cell.W), cell, 40, 0)
	for _, p := range []Protocol{Kitty, ITerm2, Sixel} {
		b.Run(p.String(), func(b *testing.B) {
			var n int
			for b.Loop() {
				var sb strings.Builder
				if err := Encode(&sb, win, p, Place{Cols: 100, Rows: 40}); err != nil {
					b.Fatal(err)
				}
				n = sb.Len()
			}
			b.ReportMetric(float64(n), "bytes")
		})
	}
	b.Run("scale", func(b *testing.B) {
		for b.Loop() {
			_ = Window(Scale(src, 1000), cell, 40, 0)
		}
	})
}
