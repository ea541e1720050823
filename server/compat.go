package server

import (
	"fmt"
	"strings"

	"sandview/server/webhook"
)

// Compat is a wire profile: how the server answers where the interface as
// written (http-interface.md) and the reference deployment of the service
// (the open-source gateway) differ. Clients written against either can then
// run unchanged against `sandview serve`.
//
// Both profiles serve the raw payload of an encrypted email as base64 text
// of the message, report reverseDns with `verified` beside `result`, and
// send every multi-line SMTP reply in one write.
//
// Both profiles refuse a request body with a property the interface does
// not name, at any depth, with 400 naming the property (as the deployment
// does), and both answer POST /api/test/emails with 201, taking the auth
// results at the top level (reverseDns a boolean) or nested under "auth"
// (reverseDns a boolean or pass, fail, none), not both.
type Compat string

const (
	// CompatContract answers as the interface is written. It is the
	// default (the zero value means it too).
	CompatContract Compat = "contract"
	// CompatReference answers like the reference deployment wherever an
	// official client SDK or a test written with one could depend on it:
	//   - the encryption context defaults to ReferenceEncryptionContext,
	//     which the SDKs hard-code (contract: crypto.DefaultContext);
	//   - decoded metadata `to` is one string, the envelope recipient
	//     (contract: an array of the To header's recipients);
	//   - POST /api/inboxes also takes `persistence` ("ephemeral" always;
	//     "persistent" with a data directory) and `spamAnalysis` (false:
	//     the server does no spam analysis), and answers with `persistent`
	//     (contract: both properties refused as unknown).
	// Webhooks (see webhook.Config.ReferenceWire):
	//   - test and rotate-secret answer 201 (contract: 200);
	//   - a filter regex or template that does not compile answers 400
	//     (contract: 422);
	//   - create and update answer with the secret and stats, like get
	//     (contract: create without stats, update without either);
	//   - deleting an unknown webhook, or one of an unknown inbox, answers
	//     204 (contract: 404);
	//   - deliveries carry X-Vault-Signature, X-Vault-Event,
	//     X-Vault-Delivery, X-Vault-Timestamp and User-Agent
	//     VaultSandbox-Webhook/1.0 (contract: X-Service-*,
	//     Service-Webhook/1.0); the signature scheme is the same in both
	//     (HMAC-SHA256 keyed with the whole secret, whsec_ included);
	//   - data.id in payloads is the email id as the API knows it, without
	//     the msg_ prefix.
	CompatReference Compat = "reference"
)

// ReferenceEncryptionContext is the reference deployment's encryption
// context, hard-coded in the official SDKs for the HKDF info and the
// signature transcript.
const ReferenceEncryptionContext = "vaultsandbox:email:v1"

// ParseCompat reads a profile name (as given to `sandview serve --compat`
// or SVC_COMPAT); "" is CompatContract.
func ParseCompat(name string) (Compat, error) {
	switch c := Compat(strings.ToLower(strings.TrimSpace(name))); c {
	case "", CompatContract:
		return CompatContract, nil
	case CompatReference:
		return c, nil
	}
	return "", fmt.Errorf("unknown wire profile %q: use %s (the interface as written, the default) or %s (like the reference deployment)",
		name, CompatContract, CompatReference)
}

// applyCompat validates cfg.Compat (the zero value becomes CompatContract)
// and hands the profile to the parts: the core's metadata, the HTTP API,
// the webhook engine's configuration, and the default encryption context.
func (cfg *Config) applyCompat() error {
	c, err := ParseCompat(string(cfg.Compat))
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	cfg.Compat = c
	reference := c == CompatReference
	if reference && cfg.EncryptionContext == "" {
		cfg.EncryptionContext = ReferenceEncryptionContext
	}
	cfg.ReferenceMetadata, cfg.HTTP.Reference = reference, reference
	wcfg := webhook.DefaultConfig()
	if cfg.Webhooks != nil {
		wcfg = *cfg.Webhooks
	}
	wcfg.ReferenceWire = reference
	cfg.Webhooks = &wcfg
	return nil
}
