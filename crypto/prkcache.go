package crypto

import (
	"crypto/sha256"
	"crypto/sha512"
	"sync"
)

// prkCacheSize is how many encapsulations an Opener remembers: the
// payloads of one message share one (see Envelope) and are opened one
// after the other, by up to a few workers at a time, so a short memory
// finds nearly every repeat.
const prkCacheSize = 32

// prkCache remembers the HKDF pseudorandom keys of the last
// encapsulations an Opener opened, by the SHA-256 of their ct_kem (HKDF's
// salt, computed anyway), so that the payloads of one message cost one
// ML-KEM decapsulation, not one each. Decapsulation and HKDF's extract
// step are functions of ct_kem and the inbox's secret key, which the
// Opener holds anyway, so a remembered key is exactly the key a
// decapsulation would give. It is safe for concurrent use.
type prkCache struct {
	mu      sync.Mutex
	next    int // the slot put fills next
	entries [prkCacheSize]prkEntry
}

type prkEntry struct {
	salt [sha256.Size]byte
	prk  [sha512.Size]byte
	used bool
}

// get copies the key remembered for salt into prk and reports whether
// there was one.
func (c *prkCache) get(salt *[sha256.Size]byte, prk *[sha512.Size]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if e := &c.entries[k]; e.used && e.salt == *salt {
			*prk = e.prk
			return true
		}
	}
	return false
}

// put remembers prk for salt, forgetting the oldest key when full.
func (c *prkCache) put(salt *[sha256.Size]byte, prk []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &c.entries[c.next]
	e.salt, e.used = *salt, true
	copy(e.prk[:], prk)
	c.next = (c.next + 1) % prkCacheSize
}
