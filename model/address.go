package model

import (
	"strings"
	"unicode/utf8"
)

// How sandview writes an address, the one formatter of the server's
// parser, the CLI (text and JSON) and the TUI: as RFC 5322 writes it, so
// that what is printed can be pasted back into a header or an SMTP
// command.

// DisplayAddress renders an address for display: `"Name" <addr>` or
// `addr`, the address as AddrSpec writes it.
func DisplayAddress(a EventAddress) string {
	addr := AddrSpec(a.Address)
	if a.Name == "" {
		return addr
	}
	var sb strings.Builder
	sb.Grow(len(a.Name) + len(addr) + 5)
	writeQuoted(&sb, a.Name)
	sb.WriteString(" <")
	sb.WriteString(addr)
	sb.WriteByte('>')
	return sb.String()
}

// DisplayAddresses renders each address with DisplayAddress.
func DisplayAddresses(addrs []EventAddress) []string {
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, DisplayAddress(a))
	}
	return out
}

// AddrSpec writes an address (local part "@" domain, as a parser returns
// it: a quoted local part unquoted) as RFC 5322 section 3.4.1 has it: a
// local part that is not a dot-atom is quoted, `"odd local"@example.com`,
// never `odd local@example.com` (not an address). A local part quoted
// already, and text that is no address, are kept as they are.
func AddrSpec(address string) string {
	at := strings.LastIndexByte(address, '@')
	if at <= 0 {
		return address
	}
	local := address[:at]
	if isDotAtom(local) || isQuotedString(local) {
		return address
	}
	var sb strings.Builder
	sb.Grow(len(address) + 4)
	writeQuoted(&sb, local)
	sb.WriteString(address[at:])
	return sb.String()
}

// writeQuoted writes s as a quoted-string: in double quotes, with " and \
// escaped.
func writeQuoted(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	sb.WriteByte('"')
}

// isDotAtom reports whether s is a dot-atom (RFC 5322 3.2.3): atoms of
// atext (UTF-8 allowed, RFC 6532) joined by single dots.
func isDotAtom(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for _, r := range s {
		if r != '.' && !isAtext(r) {
			return false
		}
	}
	return true
}

func isAtext(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	case r >= utf8.RuneSelf:
		return r != utf8.RuneError
	}
	return strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", r)
}

// isQuotedString reports whether s is one quoted-string, its inner quotes
// escaped.
func isQuotedString(s string) bool {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return false
	}
	inner := s[1 : len(s)-1]
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '\\':
			i++
			if i == len(inner) {
				return false
			}
		case '"':
			return false
		}
	}
	return true
}

// addressKey is an address as compared: a quoted local part unquoted
// (`"a b"@x` and `a b@x` are one address), spaces around it trimmed.
func addressKey(address string) string {
	address = strings.TrimSpace(address)
	at := strings.LastIndexByte(address, '@')
	if at <= 0 || !isQuotedString(address[:at]) {
		return address
	}
	var sb strings.Builder
	inner := address[1 : at-1]
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\\' && i+1 < len(inner) {
			i++
		}
		sb.WriteByte(inner[i])
	}
	sb.WriteString(address[at:])
	return sb.String()
}
