package model

import (
	"fmt"
	"strings"
)

// ChaosConfig is an inbox's fault injection (the chaos spec,
// section 3) in its stored form: Enabled, then ExpiresAt when it was sent,
// then only the sub-objects that were sent, each complete (defaults
// filled in). GET, POST and inbox creation answer it; POST's body is its
// request form, validated and normalized by the server.
type ChaosConfig struct {
	Enabled bool `json:"enabled"`
	// ExpiresAt is echoed as it was sent (meant as RFC 3339); an instant
	// before now makes the config act as disabled, an unparsable one
	// never expires.
	ExpiresAt *string `json:"expiresAt,omitempty"`
	// ExpiresAtNull tells that expiresAt was sent as a literal null,
	// which is echoed as null (ExpiresAt is then nil).
	ExpiresAtNull  bool                 `json:"-"`
	Latency        *ChaosLatency        `json:"latency,omitempty"`
	ConnectionDrop *ChaosConnectionDrop `json:"connectionDrop,omitempty"`
	RandomError    *ChaosRandomError    `json:"randomError,omitempty"`
	Greylist       *ChaosGreylist       `json:"greylist,omitempty"`
	Blackhole      *ChaosBlackhole      `json:"blackhole,omitempty"`
}

// ChaosLatency delays the reply to the end of DATA.
type ChaosLatency struct {
	Enabled     bool    `json:"enabled"`
	MinDelayMs  float64 `json:"minDelayMs"`
	MaxDelayMs  float64 `json:"maxDelayMs"`
	Jitter      bool    `json:"jitter"`
	Probability float64 `json:"probability"`
}

// ChaosConnectionDrop closes the connection instead of replying.
type ChaosConnectionDrop struct {
	Enabled     bool    `json:"enabled"`
	Probability float64 `json:"probability"`
	Graceful    bool    `json:"graceful"`
}

// The error types of ChaosRandomError.ErrorTypes.
const (
	ChaosErrorTemporary = "temporary"
	ChaosErrorPermanent = "permanent"
)

// ChaosRandomError answers a 4xx or 5xx reply at ErrorRate.
type ChaosRandomError struct {
	Enabled    bool     `json:"enabled"`
	ErrorRate  float64  `json:"errorRate"`
	ErrorTypes []string `json:"errorTypes"`
}

// The keys greylisting tracks attempts by (ChaosGreylist.TrackBy).
const (
	ChaosTrackIP       = "ip"
	ChaosTrackSender   = "sender"
	ChaosTrackIPSender = "ip_sender"
)

// ChaosGreylist refuses a key's first MaxAttempts-1 attempts.
type ChaosGreylist struct {
	Enabled       bool    `json:"enabled"`
	RetryWindowMs float64 `json:"retryWindowMs"`
	MaxAttempts   float64 `json:"maxAttempts"`
	TrackBy       string  `json:"trackBy"`
}

// ChaosBlackhole accepts mail and stores it for nobody.
type ChaosBlackhole struct {
	Enabled         bool `json:"enabled"`
	TriggerWebhooks bool `json:"triggerWebhooks"`
}

// The chaos types, as the spec's console stream names them
// (ChaosAction.Type).
const (
	ChaosTypeConnectionDrop = "connection_drop"
	ChaosTypeGreylist       = "greylist"
	ChaosTypeRandomError    = "random_error"
	ChaosTypeBlackhole      = "blackhole"
	ChaosTypeLatency        = "latency"
)

// NoticeChaos is the StreamNotice kind of an applied chaos action (its
// Chaos field says which), sent on sandview's own channel of the event
// stream to the watchers of the primary inbox; the official clients
// receive nothing new.
const NoticeChaos = "chaos"

// ChaosAction is one applied chaos action, as it happened at the end of a
// message's DATA.
type ChaosAction struct {
	Type string `json:"type"`
	// Remote is the client's IP address, Sender the envelope sender
	// ("" for MAIL FROM:<>).
	Remote string `json:"remote"`
	Sender string `json:"sender"`
	// Code and Enhanced are the reply (random_error, greylist).
	Code     int    `json:"code,omitempty"`
	Enhanced string `json:"enhanced,omitempty"`
	// Attempt of MaxAttempts (greylist).
	Attempt     int `json:"attempt,omitempty"`
	MaxAttempts int `json:"maxAttempts,omitempty"`
	// DelayMs is the injected delay (latency).
	DelayMs int64 `json:"delayMs,omitempty"`
	// Graceful is an orderly close (connection_drop).
	Graceful bool `json:"graceful,omitempty"`
	// Webhooks tells whether a blackholed mail still fired webhooks.
	Webhooks bool `json:"webhooks,omitempty"`
}

// Text is the action in one line for the activity log, such as
// "greylisted 127.0.0.1 <app@example.com>, attempt 1 of 2". Remote and
// Sender come from the network: sanitize the line before a terminal.
func (a ChaosAction) Text() string {
	switch a.Type {
	case ChaosTypeConnectionDrop:
		if a.Graceful {
			return fmt.Sprintf("dropped the connection from %s <%s>", a.Remote, a.Sender)
		}
		return fmt.Sprintf("reset the connection from %s <%s>", a.Remote, a.Sender)
	case ChaosTypeGreylist:
		return fmt.Sprintf("greylisted %s <%s>, attempt %d of %d", a.Remote, a.Sender, a.Attempt, a.MaxAttempts)
	case ChaosTypeRandomError:
		return strings.TrimSpace(fmt.Sprintf("answered %d %s to %s <%s>", a.Code, a.Enhanced, a.Remote, a.Sender))
	case ChaosTypeBlackhole:
		if a.Webhooks {
			return fmt.Sprintf("blackholed a mail from %s <%s> (webhooks sent)", a.Remote, a.Sender)
		}
		return fmt.Sprintf("blackholed a mail from %s <%s>", a.Remote, a.Sender)
	case ChaosTypeLatency:
		return fmt.Sprintf("delayed the reply to %s <%s> by %d ms", a.Remote, a.Sender, a.DelayMs)
	}
	return fmt.Sprintf("chaos %q from %s <%s>", a.Type, a.Remote, a.Sender)
}
