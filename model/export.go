package model

// ExportVersion is the only version of exported inbox data.
const ExportVersion = 1

// ExportedInbox is the portable form of an inbox, including its secret key
// when encrypted. It must be handled as a secret.
type ExportedInbox struct {
	Version      int    `json:"version"`
	EmailAddress string `json:"emailAddress"`
	ExpiresAt    string `json:"expiresAt"`
	InboxHash    string `json:"inboxHash"`
	Encrypted    bool   `json:"encrypted"`
	EmailAuth    *bool  `json:"emailAuth,omitempty"`
	ServerSigPk  string `json:"serverSigPk,omitempty"`
	SecretKey    string `json:"secretKey,omitempty"`
	ExportedAt   string `json:"exportedAt"`
}
