package mailparse

import "sandview/model"

// parseAddressHeader reads an address header value (raw, possibly RFC 2047
// encoded) with model.ParseAddressList, making names and addresses valid
// UTF-8. ok is false when the value is not a valid address list; the
// addresses are then salvaged from the text as well as possible.
func parseAddressHeader(raw string) ([]model.EventAddress, bool) {
	addrs, ok := model.ParseAddressList(raw)
	for i, a := range addrs {
		addrs[i] = model.EventAddress{Address: validUTF8String(a.Address), Name: validUTF8String(a.Name)}
	}
	return addrs, ok
}
