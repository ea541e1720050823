package access

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
)

// KeyPrefix starts every principal's API key, so that one is told from the
// server's own key (and recognised in a leak).
const KeyPrefix = "svp_"

// Keyring holds the principals and their API keys. A principal's key is
// HMAC-SHA256 over its ID keyed by the keyring's secret: stable while the
// secret is (one server process), and no key is stored. Safe for
// concurrent use.
type Keyring struct {
	secret []byte
	mu     sync.RWMutex
	byKey  map[[sha256.Size]byte]Principal // by the digest of the key
}

// NewKeyring returns an empty keyring over secret (random, at least 32
// bytes, kept by the caller and never shown).
func NewKeyring(secret []byte) *Keyring {
	return &Keyring{secret: append([]byte(nil), secret...), byKey: make(map[[sha256.Size]byte]Principal)}
}

// Key registers p (or updates its Name and Role) and returns its API key.
// An empty Role is RoleMember; a role none of the three is kept, and
// Decide grants it no more than RoleViewer.
func (k *Keyring) Key(p Principal) string {
	if p.Role == "" {
		p.Role = RoleMember
	}
	key := k.derive(p.ID)
	k.mu.Lock()
	k.byKey[sha256.Sum256([]byte(key))] = p
	k.mu.Unlock()
	return key
}

// Revoke forgets the principal id: its key stops working at once.
func (k *Keyring) Revoke(id string) {
	digest := sha256.Sum256([]byte(k.derive(id)))
	k.mu.Lock()
	delete(k.byKey, digest)
	k.mu.Unlock()
}

// Lookup returns the principal whose key is key.
func (k *Keyring) Lookup(key string) (Principal, bool) {
	if !strings.HasPrefix(key, KeyPrefix) {
		return Principal{}, false
	}
	digest := sha256.Sum256([]byte(key))
	k.mu.RLock()
	p, ok := k.byKey[digest]
	k.mu.RUnlock()
	return p, ok
}

func (k *Keyring) derive(id string) string {
	mac := hmac.New(sha256.New, k.secret)
	mac.Write([]byte("sandview principal\x00" + id))
	return KeyPrefix + hex.EncodeToString(mac.Sum(nil))
}
