package mailparse

import (
	"errors"
	"net/mail"
	"strings"

	"github.com/jhillyerd/enmime"

	"sandview/model"
)

// parseAddressHeader reads an address header value (raw, possibly RFC 2047
// encoded). ok is false when the value is not a valid address list; the
// addresses are then salvaged from the text as well as possible.
func parseAddressHeader(raw string) (addrs []model.EventAddress, ok bool) {
	if strings.TrimSpace(raw) == "" {
		return nil, true
	}
	list, err := enmime.ParseAddressList(raw)
	if errors.Is(err, mail.ErrHeaderNotPresent) {
		// A group without members, such as "undisclosed-recipients:;".
		return nil, true
	}
	if err != nil {
		return salvageAddresses(raw), false
	}
	addrs = make([]model.EventAddress, 0, len(list))
	for _, a := range list {
		addrs = append(addrs, model.EventAddress{
			Address: validUTF8String(a.Address),
			Name:    validUTF8String(a.Name),
		})
	}
	return addrs, true
}

// salvageAddresses pulls what looks like addresses out of a header value
// that is not a valid address list: each comma-separated piece that holds an
// "@" gives one address, taken from inside <...> when present.
func salvageAddresses(raw string) []model.EventAddress {
	var out []model.EventAddress
	for _, piece := range strings.Split(raw, ",") {
		piece = strings.TrimSpace(piece)
		if !strings.Contains(piece, "@") {
			continue
		}
		addr, name := piece, ""
		if open := strings.LastIndexByte(piece, '<'); open >= 0 {
			if end := strings.IndexByte(piece[open:], '>'); end > 0 {
				addr = piece[open+1 : open+end]
				name = strings.Trim(strings.TrimSpace(piece[:open]), `"`)
			}
		}
		out = append(out, model.EventAddress{
			Address: validUTF8String(strings.TrimSpace(addr)),
			Name:    validUTF8String(name),
		})
	}
	return out
}

// displayAddress renders an address for display: `"Name" <addr>` or `addr`.
func displayAddress(a model.EventAddress) string {
	if a.Name == "" {
		return a.Address
	}
	var sb strings.Builder
	sb.Grow(len(a.Name) + len(a.Address) + 5)
	sb.WriteByte('"')
	for _, r := range a.Name {
		if r == '"' || r == '\\' {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	sb.WriteString(`" <`)
	sb.WriteString(a.Address)
	sb.WriteByte('>')
	return sb.String()
}

// displayAddresses renders each address with displayAddress.
func displayAddresses(addrs []model.EventAddress) []string {
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, displayAddress(a))
	}
	return out
}
