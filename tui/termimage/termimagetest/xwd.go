package termimagetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math/bits"
)

// DecodeXWD reads a screenshot in X's window dump format (xwd -root, as
// an X server of 24 or 32 bits per pixel in ZPixmap writes it).
func DecodeXWD(data []byte) (*image.RGBA, error) {
	if len(data) < 100 {
		return nil, errors.New("xwd: short header")
	}
	field := func(i int) uint32 { return binary.BigEndian.Uint32(data[4*i:]) }
	headerSize, version, format := field(0), field(1), field(2)
	width, height := int(field(4)), int(field(5))
	byteOrder, bpp, stride := field(7), int(field(11)), int(field(12))
	masks := [3]uint32{field(14), field(15), field(16)}
	ncolors := int(field(19))
	if version != 7 || format != 2 || (bpp != 32 && bpp != 24) {
		return nil, fmt.Errorf("xwd: version %d, format %d, %d bits per pixel: want 7, ZPixmap, 24 or 32", version, format, bpp)
	}
	off := int(headerSize) + 12*ncolors
	if width <= 0 || height <= 0 || off+stride*height > len(data) || stride < width*bpp/8 {
		return nil, errors.New("xwd: truncated pixels")
	}
	m := image.NewRGBA(image.Rect(0, 0, width, height))
	for y := range height {
		row := data[off+y*stride:]
		for x := range width {
			p := row[x*bpp/8 : x*bpp/8+bpp/8]
			var v uint32
			for i := range p {
				if byteOrder == 0 { // LSBFirst
					v |= uint32(p[i]) << (8 * i)
				} else {
					v = v<<8 | uint32(p[i])
				}
			}
			var c [3]uint8
			for i, mask := range masks {
				c[i] = uint8((v & mask) >> bits.TrailingZeros32(mask))
			}
			m.SetRGBA(x, y, color.RGBA{c[0], c[1], c[2], 255})
		}
	}
	return m, nil
}
