package core

import (
	"strings"

	"sandview/model"
)

// Address rules of a new inbox.
const (
	maxAddressLength   = 254
	maxLocalPartLength = 64
	randomLocalLength  = 10
	localAlphabet      = "abcdefghijklmnopqrstuvwxyz0123456789"
)

// resolveEncryption applies the encryption policy table.
func (i Inboxes) resolveEncryption(requested *string) (bool, error) {
	choice := ""
	if requested != nil {
		choice = *requested
	}
	switch choice {
	case "", model.EncryptionEncrypted, model.EncryptionPlain:
	default:
		return false, invalid("encryption must be %q or %q, got %q", model.EncryptionEncrypted, model.EncryptionPlain, choice)
	}
	policy := i.c.opts.EncryptionPolicy
	switch {
	case policy == model.PolicyAlways && choice == model.EncryptionPlain:
		return false, invalid("the server's encryption policy is %q: plain inboxes cannot be created", policy)
	case policy == model.PolicyNever && choice == model.EncryptionEncrypted:
		return false, invalid("the server's encryption policy is %q: encrypted inboxes cannot be created", policy)
	case choice == "":
		return policy == model.PolicyAlways || policy == model.PolicyEnabled, nil
	}
	return choice == model.EncryptionEncrypted, nil
}

// resolveAddress turns the requested emailAddress (a full address, a
// domain, or nothing) into a lowercased address in a served domain;
// random reports a generated local part.
func (i Inboxes) resolveAddress(requested *string) (address string, random bool, err error) {
	want := ""
	if requested != nil {
		want = strings.ToLower(strings.TrimSpace(*requested))
	}
	if len(want) > maxAddressLength {
		return "", false, invalid("emailAddress is %d characters, at most %d are allowed", len(want), maxAddressLength)
	}
	if want == "" {
		return randomLocalPart() + "@" + i.c.opts.Domains[0], true, nil
	}
	local, domain, hasAt := strings.Cut(want, "@")
	if !hasAt {
		local, domain = "", want
	}
	if strings.Contains(domain, "@") {
		return "", false, invalid("emailAddress %q has more than one @", want)
	}
	if !i.ServesDomain(domain) {
		return "", false, invalid("domain %q is not allowed; allowed domains: %s", domain, strings.Join(i.c.opts.Domains, ", "))
	}
	if !hasAt {
		return randomLocalPart() + "@" + domain, true, nil
	}
	if err := checkLocalPart(local); err != nil {
		return "", false, err
	}
	return local + "@" + domain, false, nil
}

// checkLocalPart accepts a dot-atom local part (RFC 5322 atext and dots,
// no leading, trailing or doubled dot).
func checkLocalPart(local string) error {
	if local == "" {
		return invalid("emailAddress has an empty local part")
	}
	if len(local) > maxLocalPartLength {
		return invalid("the local part of emailAddress is %d characters, at most %d are allowed", len(local), maxLocalPartLength)
	}
	if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
		return invalid("the local part %q of emailAddress has a misplaced dot", local)
	}
	for _, r := range local {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune(".!#$%&'*+/=?^_`{|}~-", r) {
			continue
		}
		return invalid("the local part %q of emailAddress contains %q, which is not allowed", local, r)
	}
	return nil
}
