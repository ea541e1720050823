package termimage

import (
	"image"
	"image/draw"
)

// CellSize is the size of one terminal cell in pixels.
type CellSize struct{ W, H int }

// DefaultCell is the cell size assumed when the terminal does not report
// one (CSI 16 t unanswered, no pixel size in the window report): 10x20
// pixels, the cell of a common 10-11 pt monospace font at 96 dpi.
var DefaultCell = CellSize{W: 10, H: 20}

// OrDefault is c, or DefaultCell when c is not a usable size.
func (c CellSize) OrDefault() CellSize {
	if c.W <= 0 || c.H <= 0 || c.W > 1000 || c.H > 1000 {
		return DefaultCell
	}
	return c
}

// FromWindow is the cell size of a window of cols x rows cells that is
// w x h pixels (CSI 14 t's answer), or the zero size when it is unknown.
func FromWindow(w, h, cols, rows int) CellSize {
	if w <= 0 || h <= 0 || cols <= 0 || rows <= 0 {
		return CellSize{}
	}
	return CellSize{W: w / cols, H: h / rows}
}

// Scale returns img scaled to width pixels, its aspect kept (averaging
// the pixels each one covers when it shrinks). A width of 0 or the
// image's own returns it as RGBA unchanged.
func Scale(img image.Image, width int) *image.RGBA {
	src := toRGBA(img)
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	if width <= 0 || width == sw || sw == 0 || sh == 0 {
		return src
	}
	height := max(sh*width/sw, 1)
	dst := image.NewRGBA(image.Rect(0, 0, width, height))
	for y := range height {
		y0, y1 := y*sh/height, max((y+1)*sh/height, y*sh/height+1)
		for x := range width {
			x0, x1 := x*sw/width, max((x+1)*sw/width, x*sw/width+1)
			var r, g, b, a, n uint32
			for sy := y0; sy < y1; sy++ {
				row := src.Pix[sy*src.Stride:]
				for sx := x0; sx < x1; sx++ {
					p := row[sx*4 : sx*4+4]
					r, g, b, a = r+uint32(p[0]), g+uint32(p[1]), b+uint32(p[2]), a+uint32(p[3])
					n++
				}
			}
			o := dst.PixOffset(x, y)
			dst.Pix[o], dst.Pix[o+1], dst.Pix[o+2], dst.Pix[o+3] = uint8(r/n), uint8(g/n), uint8(b/n), uint8(a/n)
		}
	}
	return dst
}

// Window is the part of a picture scaled to fill cols cells across that
// shows in rows cells from row top down (the picture scrolled by top
// rows of cells): it is at most cols x rows cells, and its height a
// multiple of six pixels (a sixel band) when it is cut.
func Window(scaled *image.RGBA, cell CellSize, rows, top int) *image.RGBA {
	cell = cell.OrDefault()
	b := scaled.Bounds()
	y0 := min(max(top, 0)*cell.H, b.Dy())
	h := min(rows*cell.H, b.Dy()-y0)
	if y0+h < b.Dy() {
		h -= h % 6
	}
	if h <= 0 {
		return image.NewRGBA(image.Rect(0, 0, b.Dx(), 0))
	}
	return scaled.SubImage(image.Rect(b.Min.X, b.Min.Y+y0, b.Max.X, b.Min.Y+y0+h)).(*image.RGBA)
}

// Rows is how many rows of cells a picture h pixels tall takes.
func Rows(h int, cell CellSize) int {
	cell = cell.OrDefault()
	return (h + cell.H - 1) / cell.H
}

// toRGBA is img as an *image.RGBA at the origin.
func toRGBA(img image.Image) *image.RGBA {
	if m, ok := img.(*image.RGBA); ok && m.Bounds().Min == (image.Point{}) {
		return m
	}
	b := img.Bounds()
	m := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(m, m.Bounds(), img, b.Min, draw.Src)
	return m
}
