package model

import (
	"slices"
	"strings"
)

// NamesAddress reports whether a recipient as mail carries it ("addr",
// "<addr>" or "Name <addr>") is address, compared case-insensitively and
// whether or not a local part is quoted (`"a b"@x` is `a b@x`).
func NamesAddress(recipient, address string) bool {
	addr := recipient
	if open := strings.LastIndexByte(addr, '<'); open >= 0 {
		addr = addr[open+1:]
		if end := strings.IndexByte(addr, '>'); end >= 0 {
			addr = addr[:end]
		}
	}
	return strings.EqualFold(addressKey(addr), addressKey(address))
}

// SentTo reports whether address is among the email's recipients: those
// its To header names, or those of its envelope (mail sent by Bcc).
func (e Email) SentTo(address string) bool {
	named := func(to string) bool { return NamesAddress(to, address) }
	return slices.ContainsFunc(e.To, named) || slices.ContainsFunc(e.EnvelopeTo(), named)
}
