package search

// grams is a Bloom filter of the byte pairs of a folded text: 2,048 bits, one
// hash. A needle can occur in a text only if the text's grams cover the
// needle's, so a body that lacks a pair of the needle is passed over without
// being scanned. 256 bytes per body.
type grams [32]uint64

func gramsOf(s string) grams {
	var g grams
	for i := 1; i < len(s); i++ {
		h := gramHash(s[i-1], s[i])
		g[h>>6] |= 1 << (h & 63)
	}
	return g
}

// gramHash is the bit of a byte pair: Fibonacci hashing of the pair to 11
// bits.
func gramHash(a, b byte) uint32 {
	return (uint32(a)<<8 | uint32(b)) * 2654435761 >> 21
}

// covers reports whether every pair of needle may be in g.
func (g *grams) covers(needle *grams) bool {
	for i := range g {
		if needle[i]&^g[i] != 0 {
			return false
		}
	}
	return true
}
