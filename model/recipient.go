package model

import (
	"slices"
	"strings"
)

// NamesAddress reports whether a recipient as mail carries it ("addr",
// "<addr>" or "Name <addr>") is address, compared case-insensitively.
func NamesAddress(recipient, address string) bool {
	addr := recipient
	if open := strings.LastIndexByte(addr, '<'); open >= 0 {
		addr = addr[open+1:]
		if end := strings.IndexByte(addr, '>'); end >= 0 {
			addr = addr[:end]
		}
	}
	return strings.EqualFold(strings.TrimSpace(addr), strings.TrimSpace(address))
}

// SentTo reports whether address is among the email's recipients.
func (e Email) SentTo(address string) bool {
	return slices.ContainsFunc(e.To, func(to string) bool { return NamesAddress(to, address) })
}
