// Package crypto holds pure functions over bytes for the service's
// encryption: base64url, ML-KEM-768 keys, sealing/opening signed payloads,
// webhook HMAC signatures.
//
// Nothing here does I/O: no files, no network, no logging. Randomness comes
// only from crypto/rand.
//
// An encrypted payload is sealed to an inbox's ML-KEM-768 public key and
// signed by the server's ML-DSA-65 key. A reader (see Opener) checks the
// payload's shape, compares the embedded server key with the key pinned when
// the inbox was created, verifies the signature over the transcript and only
// then decapsulates, derives the AES-256-GCM key with HKDF-SHA-512 and
// decrypts. Every failure except a server-key mismatch is reported as the
// single generic ErrDecryptionFailed, so a caller cannot learn which step
// rejected the payload.
//
// A server seals the payloads of one message in one Envelope (a single
// encapsulation; each payload keeps its own nonce and, through the aad in
// HKDF's info, its own key), keeps them in the compact binary form Sealed,
// signs them when it chooses (Sealer.Sign) and renders them as JSON when it
// serves them (Sealer.AppendJSON).
package crypto
