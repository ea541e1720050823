// Package termimagetest compares pictures for the tests of terminal
// graphics: what a terminal shows, or what an encoding decodes to, with
// the picture it came from.
package termimagetest

import "image"

// Far is how far apart (0-255) a pixel's channels must be for the pixel
// to count as wrong rather than approximated.
const Far = 64

// Result is how two pictures of the same size differ.
type Result struct {
	// Mean is the mean absolute difference per channel (0-255, alpha
	// included); -1 when the sizes differ.
	Mean float64
	// Max is the largest difference of a channel.
	Max int
	// Wrong is the share (0-1) of pixels with a channel more than Far off.
	Wrong float64
}

// Diff compares two pictures pixel by pixel.
func Diff(a, b image.Image) Result {
	ab, bb := a.Bounds(), b.Bounds()
	if ab.Size() != bb.Size() {
		return Result{Mean: -1}
	}
	var r Result
	var sum uint64
	wrong := 0
	for y := range ab.Dy() {
		for x := range ab.Dx() {
			r1, g1, b1, a1 := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, a2 := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			far := false
			for _, d := range [4]int{absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2), absDiff(a1, a2)} {
				sum += uint64(d)
				r.Max = max(r.Max, d)
				far = far || d > Far
			}
			if far {
				wrong++
			}
		}
	}
	n := ab.Dx() * ab.Dy()
	if n == 0 {
		return r
	}
	r.Mean = float64(sum) / float64(4*n)
	r.Wrong = float64(wrong) / float64(n)
	return r
}

// absDiff is |a-b| of two 16-bit channels, in 8 bits.
func absDiff(a, b uint32) int {
	d := int(a>>8) - int(b>>8)
	if d < 0 {
		return -d
	}
	return d
}
