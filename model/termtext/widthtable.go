package termtext

import "unicode"

// widthConflicts are the characters, other than the removed ones and the
// regional indicators, that the width tables disagree on when they stand
// alone: x/ansi by cluster, x/ansi by character and go-runewidth. Most are
// combining marks newer than Go's Unicode tables. Sanitize replaces
// them with U+FFFD. TestWidthConflictsAreCurrent recomputes this table and
// prints the new one when a library update changes it.
var widthConflicts = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x0897, Hi: 0x0897, Stride: 1},
		{Lo: 0x0cf3, Hi: 0x0cf3, Stride: 1},
		{Lo: 0x1acf, Hi: 0x1add, Stride: 1},
		{Lo: 0x1ae0, Hi: 0x1aeb, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x10d69, Hi: 0x10d6d, Stride: 1},
		{Lo: 0x10efa, Hi: 0x10efc, Stride: 1},
		{Lo: 0x113bb, Hi: 0x113c0, Stride: 1},
		{Lo: 0x113ce, Hi: 0x113ce, Stride: 1},
		{Lo: 0x113d0, Hi: 0x113d0, Stride: 1},
		{Lo: 0x113d2, Hi: 0x113d2, Stride: 1},
		{Lo: 0x113e1, Hi: 0x113e2, Stride: 1},
		{Lo: 0x1171e, Hi: 0x1171e, Stride: 1},
		{Lo: 0x11b60, Hi: 0x11b60, Stride: 1},
		{Lo: 0x11b62, Hi: 0x11b64, Stride: 1},
		{Lo: 0x11b66, Hi: 0x11b66, Stride: 1},
		{Lo: 0x11f5a, Hi: 0x11f5a, Stride: 1},
		{Lo: 0x1611e, Hi: 0x16129, Stride: 1},
		{Lo: 0x1612d, Hi: 0x1612f, Stride: 1},
		{Lo: 0x1d165, Hi: 0x1d166, Stride: 1},
		{Lo: 0x1d16d, Hi: 0x1d172, Stride: 1},
		{Lo: 0x1e5ee, Hi: 0x1e5ef, Stride: 1},
		{Lo: 0x1e6e3, Hi: 0x1e6e3, Stride: 1},
		{Lo: 0x1e6e6, Hi: 0x1e6e6, Stride: 1},
		{Lo: 0x1e6ee, Hi: 0x1e6ef, Stride: 1},
		{Lo: 0x1e6f5, Hi: 0x1e6f5, Stride: 1},
	},
}
