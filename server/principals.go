package server

import (
	"crypto/rand"

	"sandview/server/access"
)

// newKeyring is a keyring over a fresh random secret: principals' keys
// hold for this process only.
func newKeyring() *access.Keyring {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails
	return access.NewKeyring(secret)
}

// PrincipalKey registers p (or updates its Name and Role when it is
// registered already) and returns an API key that acts as p: the HTTP
// API lets it see only the inboxes p owns and the catch-all, and do only
// what p's role may (see server/access). The key is derived from p.ID and
// a secret of this process: the same for p until the server stops. Never
// log it.
func (s *Server) PrincipalKey(p access.Principal) string { return s.principals.Key(p) }

// RevokePrincipal makes the key of the principal id stop working at once
// (requests with it answer 401). Its inboxes stay.
func (s *Server) RevokePrincipal(id string) { s.principals.Revoke(id) }
