package client

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"sandview/client/securefile"
	"sandview/crypto"
	"sandview/model"
)

// ImportInbox validates exported inbox data (client contract, steps 1-9 in
// order), rejects an inbox that is already loaded (same address or hash)
// with *InboxAlreadyExistsError, and for an encrypted inbox compares the
// exported server key with the one the server reports now
// (ERROR_SERVER_KEY_MISMATCH). That last check needs the server: when it
// cannot be reached (*NetworkError, *TimeoutError) the inbox is imported
// unchecked and its opener is built later, on first use. Any other failure
// of the server-info request fails the import.
func (c *Client) ImportInbox(ctx context.Context, data []byte) (*Inbox, error) {
	d, err := ValidateExport(data)
	if err != nil {
		return nil, err
	}
	return c.importValidated(ctx, d)
}

// ImportInboxData imports exported data given as a struct; it is validated
// exactly like ImportInbox.
func (c *Client) ImportInboxData(ctx context.Context, d model.ExportedInbox) (*Inbox, error) {
	data, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("import inbox %s: encode: %w", d.EmailAddress, err)
	}
	return c.ImportInbox(ctx, data)
}

// ImportInboxFromFile imports an export file.
func (c *Client) ImportInboxFromFile(ctx context.Context, path string) (*Inbox, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("import inbox: %w", err)
	}
	in, err := c.ImportInbox(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("import inbox from %s: %w", path, err)
	}
	return in, nil
}

// ExportInboxToFile writes the inbox's export to path (see SaveExport).
// The file holds the inbox's secret key.
func (c *Client) ExportInboxToFile(inbox *Inbox, path string) error {
	d, err := inbox.Export()
	if err != nil {
		return err
	}
	if err := SaveExport(path, d); err != nil {
		return fmt.Errorf("export inbox %s: %w", d.EmailAddress, err)
	}
	return nil
}

// SaveExport writes export data to path as indented JSON with a final
// newline: mode 0600, atomically (temp file, fsync, rename), creating a
// missing directory with mode 0700.
func SaveExport(path string, d model.ExportedInbox) error {
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the export of %s: %w", d.EmailAddress, err)
	}
	return securefile.Write(path, append(data, '\n'))
}

// importValidated checks for an already loaded inbox and the server key,
// then loads the inbox.
func (c *Client) importValidated(ctx context.Context, d model.ExportedInbox) (*Inbox, error) {
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	in := c.inboxFromExport(d)
	if err := c.loaded.checkNotLoaded(in); err != nil {
		return nil, err
	}
	if in.info.Encrypted {
		if err := c.checkServerKey(ctx, in); err != nil {
			return nil, err
		}
	}
	if err := c.loaded.add(in, false); err != nil {
		return nil, err
	}
	return in, nil
}

// inboxFromExport builds an inbox from validated data.
func (c *Client) inboxFromExport(d model.ExportedInbox) *Inbox {
	expires, _ := ParseTimestamp(d.ExpiresAt) // validated
	in := &Inbox{c: c, emailAuth: d.EmailAuth, info: model.Inbox{
		EmailAddress: d.EmailAddress,
		ExpiresAt:    expires,
		InboxHash:    d.InboxHash,
		Encrypted:    d.Encrypted,
	}}
	if d.EmailAuth != nil {
		in.info.EmailAuth = *d.EmailAuth
	}
	if !d.Encrypted {
		return in
	}
	// Both keys decode: ValidateExport checked them.
	in.secretKey, _ = crypto.DecodeBase64URL(d.SecretKey)
	in.serverKey, _ = crypto.DecodeBase64URL(d.ServerSigPk)
	in.info.ServerSigPk = d.ServerSigPk
	return in
}

// errBadSecretKey is the import error of a secret key of the right size
// that is not an ML-KEM-768 key (its embedded public-key hash is wrong).
func errBadSecretKey() error {
	return &InvalidImportDataError{Code: ErrCodeInvalidSecretKey, Reason: "secretKey is not a valid ML-KEM-768 secret key"}
}

// checkServerKey compares the inbox's pinned key with the server's current
// key and builds the opener with the server's context. An unreachable
// server skips the comparison (see ImportInbox); the keys are then only
// parsed, so a malformed key still fails the import.
func (c *Client) checkServerKey(ctx context.Context, in *Inbox) error {
	info, err := c.ServerInfo(ctx)
	var network *NetworkError
	var timeout *TimeoutError
	switch {
	case errors.As(err, &network), errors.As(err, &timeout):
		if _, err := crypto.NewOpener(in.secretKey, in.serverKey, ""); err != nil {
			return errBadSecretKey()
		}
		return nil
	case err != nil:
		return fmt.Errorf("import inbox %s: check the server key: %w", in.info.EmailAddress, err)
	}
	current, err := crypto.DecodeBase64URL(info.ServerSigPk)
	if err != nil || subtle.ConstantTimeCompare(current, in.serverKey) != 1 {
		return &InvalidImportDataError{
			Code:   ErrCodeServerKeyMismatch,
			Reason: fmt.Sprintf("inbox %s was created on a server with another signing key than %s", in.info.EmailAddress, c.baseURL),
		}
	}
	if err := in.setOpener(info.EncryptionContext()); err != nil {
		return errBadSecretKey()
	}
	return nil
}

// ValidateExport checks exported inbox data with the contract's steps 1-9,
// in order, and returns it decoded. Unknown fields (such as the SDKs'
// emailAuth) are accepted. Errors are *InvalidImportDataError.
func ValidateExport(data []byte) (model.ExportedInbox, error) {
	invalid := func(code, format string, args ...any) (model.ExportedInbox, error) {
		return model.ExportedInbox{}, &InvalidImportDataError{Code: code, Reason: fmt.Sprintf(format, args...)}
	}
	// Step 1: JSON, decoded generically so presence and types can be checked.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		if err == nil {
			err = errors.New("it is null")
		}
		return invalid("", "not a JSON object: %v", err)
	}
	present := func(name string) bool {
		v, ok := fields[name]
		return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
	}
	str := func(name string) (string, bool) {
		var s string
		err := json.Unmarshal(fields[name], &s)
		return s, err == nil
	}

	// Step 2: version equals 1.
	var version float64
	if err := json.Unmarshal(fields["version"], &version); err != nil || version != model.ExportVersion {
		return invalid(ErrCodeUnsupportedVersion, "unsupported export version %s; only version 1 is supported", jsonText(fields["version"]))
	}
	// Step 3: required fields present and non-null.
	for _, name := range []string{"version", "emailAddress", "expiresAt", "inboxHash", "encrypted", "exportedAt"} {
		if !present(name) {
			return invalid("", "required field %s is missing", name)
		}
	}
	d := model.ExportedInbox{Version: model.ExportVersion}
	// Step 4: an address with exactly one '@'.
	address, ok := str("emailAddress")
	if !ok || address == "" || strings.Count(address, "@") != 1 {
		return invalid(ErrCodeInvalidEmail, "emailAddress %s is not an email address with exactly one @", jsonText(fields["emailAddress"]))
	}
	if problem := hostileAddress(address); problem != "" {
		return invalid(ErrCodeInvalidEmail, "emailAddress %q %s", address, problem)
	}
	d.EmailAddress = address
	// Step 5: a non-empty inbox hash.
	hash, ok := str("inboxHash")
	if !ok || strings.TrimSpace(hash) == "" {
		return invalid(ErrCodeInvalidInboxHash, "inboxHash must be a non-empty string")
	}
	d.InboxHash = hash
	// Step 6: encrypted is a boolean.
	if err := json.Unmarshal(fields["encrypted"], &d.Encrypted); err != nil {
		return invalid(ErrCodeInvalidEncryptedField, "encrypted must be true or false, got %s", jsonText(fields["encrypted"]))
	}
	if !d.Encrypted && present("secretKey") && string(bytes.TrimSpace(fields["secretKey"])) != `""` {
		// A plain inbox has no key: an export that says both contradicts
		// itself (and would be read as plain, its mail unverified).
		return invalid(ErrCodeInvalidEncryptedField, "encrypted is false but the export holds a secretKey: a plain inbox has no key")
	}
	if d.Encrypted {
		// Steps 7 and 8: the keys.
		var err error
		if d.SecretKey, err = checkKeyField(fields, "secretKey", crypto.KEMSecretKeySize,
			ErrCodeMissingSecretKey, ErrCodeInvalidSecretKey, ErrCodeInvalidSecretKeySize); err != nil {
			return model.ExportedInbox{}, err
		}
		if d.ServerSigPk, err = checkKeyField(fields, "serverSigPk", crypto.SigPublicKeySize,
			ErrCodeMissingServerKey, ErrCodeInvalidServerKey, ErrCodeInvalidServerKeySize); err != nil {
			return model.ExportedInbox{}, err
		}
	}
	// Step 9: ISO 8601 timestamps.
	for _, name := range []string{"expiresAt", "exportedAt"} {
		s, ok := str(name)
		if !ok {
			return invalid("", "%s must be an ISO 8601 timestamp string, got %s", name, jsonText(fields[name]))
		}
		if _, err := ParseTimestamp(s); err != nil {
			return invalid("", "%s: %v", name, err)
		}
		if name == "expiresAt" {
			d.ExpiresAt = s
		} else {
			d.ExportedAt = s
		}
	}
	if present("emailAuth") {
		var auth bool
		if err := json.Unmarshal(fields["emailAuth"], &auth); err == nil {
			d.EmailAuth = &auth
		}
	}
	return d, nil
}

// hostileAddress says what makes an address unfit to load, or "": control
// and format characters (ESC, NUL, bidi overrides, zero-width characters:
// the terminal shows the address stripped of them, so it would look like
// another), and path syntax (a '/' or '\\', or a part that is "." or "..").
func hostileAddress(address string) string {
	for k, r := range address {
		switch {
		case r == utf8.RuneError:
			return fmt.Sprintf("is not valid UTF-8 (at byte %d)", k)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return fmt.Sprintf("contains the control character %U (at byte %d)", r, k)
		case r == '/' || r == '\\':
			return fmt.Sprintf("contains %q: an address is not a path", r)
		}
	}
	local, domain, _ := strings.Cut(address, "@")
	for _, part := range []string{local, domain} {
		if part == "." || part == ".." {
			return fmt.Sprintf("has the path part %q", part)
		}
	}
	return ""
}

// checkKeyField checks a base64url key field: present and non-empty,
// decodable, and of the right size.
func checkKeyField(fields map[string]json.RawMessage, name string, size int, missing, invalid, wrongSize string) (string, error) {
	raw, ok := fields[name]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "", &InvalidImportDataError{Code: missing, Reason: name + " is missing"}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &InvalidImportDataError{Code: invalid, Reason: name + " must be a base64url string"}
	}
	if s == "" {
		return "", &InvalidImportDataError{Code: missing, Reason: name + " is empty"}
	}
	key, err := crypto.DecodeBase64URL(s)
	if err != nil {
		return "", &InvalidImportDataError{Code: invalid, Reason: name + " is not valid base64url"}
	}
	if len(key) != size {
		return "", &InvalidImportDataError{Code: wrongSize, Reason: fmt.Sprintf("%s decodes to %d bytes, want %d", name, len(key), size)}
	}
	return s, nil
}

// jsonText shows a raw JSON value in an error message (never a key: only
// version, address and flag fields are shown).
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(missing)"
	}
	text := string(bytes.TrimSpace(raw))
	if len(text) > 80 {
		text = text[:80] + "…"
	}
	return text
}
