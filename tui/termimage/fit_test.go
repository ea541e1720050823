package termimage

import (
	"image"
	"testing"

	"sandview/tui/termimage/termimagetest"
)

func TestScaleAndWindow(t *testing.T) {
	src := newsletter(1024, 3000)
	cell := CellSize{W: 8, H: 16}
	scaled := Scale(src, 60*cell.W) // a pane 60 cells wide
	if got := scaled.Bounds().Size(); got != (image.Point{X: 480, Y: 1406}) {
		t.Fatalf("scaled to %v, want 480x1406 (aspect kept)", got)
	}
	// Shrinking averages: the scaled header band keeps its colour.
	if c := scaled.RGBAAt(240, 50); c.R != 30 || c.G != 80 || c.B != 160 {
		t.Fatalf("header colour %v after scaling", c)
	}
	if Rows(scaled.Bounds().Dy(), cell) != 88 {
		t.Fatalf("rows %d, want 88", Rows(scaled.Bounds().Dy(), cell))
	}
	w := Window(scaled, cell, 20, 10) // 20 rows, scrolled by 10
	if w.Bounds() != image.Rect(0, 160, 480, 160+318) {
		t.Fatalf("window %v, want rows 160-478 (20 rows of 16 px, cut to sixel bands)", w.Bounds())
	}
	if d := termimagetest.Diff(w, scaled.SubImage(image.Rect(0, 160, 480, 478))); d.Mean != 0 {
		t.Fatalf("window differs from the scaled picture: %+v", d)
	}
	end := Window(scaled, cell, 20, 80) // the last 8 rows: not cut
	if end.Bounds() != image.Rect(0, 1280, 480, 1406) {
		t.Fatalf("last window %v", end.Bounds())
	}
	if past := Window(scaled, cell, 20, 500); past.Bounds().Dy() != 0 {
		t.Fatalf("scrolled past the end: %v", past.Bounds())
	}
	if same := Scale(src, 0); same.Bounds().Size() != src.Bounds().Size() {
		t.Fatal("width 0 keeps the size")
	}
}

func TestCellSize(t *testing.T) {
	if (CellSize{}).OrDefault() != DefaultCell || (CellSize{W: 9, H: 5000}).OrDefault() != DefaultCell {
		t.Fatal("unusable sizes fall back to the default")
	}
	if got := FromWindow(800, 480, 80, 24); got != (CellSize{W: 10, H: 20}) {
		t.Fatalf("from window %v", got)
	}
	if FromWindow(0, 480, 80, 24) != (CellSize{}) {
		t.Fatal("unknown pixel size: zero")
	}
}
