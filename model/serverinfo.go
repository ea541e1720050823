package model

import "sandview/crypto"

// Encryption policies a server can run with.
const (
	PolicyAlways   = "always"
	PolicyEnabled  = "enabled"
	PolicyDisabled = "disabled"
	PolicyNever    = "never"
)

// ServerInfo is the answer to GET /api/server-info.
type ServerInfo struct {
	ServerSigPk               string      `json:"serverSigPk"`
	Algs                      crypto.Algs `json:"algs"`
	Context                   string      `json:"context"`
	EncryptionPolicy          string      `json:"encryptionPolicy"`
	MaxTTL                    int         `json:"maxTtl"`
	DefaultTTL                int         `json:"defaultTtl"`
	SSEConsole                bool        `json:"sseConsole"`
	AllowedDomains            []string    `json:"allowedDomains"`
	WebhookEnabled            bool        `json:"webhookEnabled"`
	WebhookRequireAuthDefault bool        `json:"webhookRequireAuthDefault"`
	// ChaosEnabled is the server's chaos switch (chaos.md, section 1):
	// present whether on or off.
	ChaosEnabled bool `json:"chaosEnabled"`
}

// EncryptionContext is the context string for payloads of this server:
// the advertised one, or the contract's default when the field is absent.
func (s ServerInfo) EncryptionContext() string {
	if s.Context == "" {
		return crypto.DefaultContext
	}
	return s.Context
}

// DefaultEncrypted reports whether an inbox created without an explicit
// encryption choice is encrypted under the server's policy.
func (s ServerInfo) DefaultEncrypted() bool {
	return s.EncryptionPolicy != PolicyDisabled && s.EncryptionPolicy != PolicyNever
}

// EncryptionFor resolves what an inbox will be given a requested mode
// ("", EncryptionEncrypted or EncryptionPlain) under the server's policy.
func (s ServerInfo) EncryptionFor(requested string) bool {
	switch s.EncryptionPolicy {
	case PolicyAlways:
		return true
	case PolicyNever:
		return false
	}
	switch requested {
	case EncryptionEncrypted:
		return true
	case EncryptionPlain:
		return false
	}
	return s.DefaultEncrypted()
}
