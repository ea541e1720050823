package dnsresolve

import (
	"bytes"
	"net"
	"strings"
)

// hosts is a hosts(5) file: the names of addresses and the addresses of
// names that the system resolver answers without asking DNS.
type hosts struct {
	addrs map[string][]net.IP // by lowercased name without the final dot
	names map[string][]string // by address (net.IP.String), names ending with a dot
}

// parseHosts reads a hosts file: an address and its names per line, '#'
// starting a comment. Lines it cannot read are skipped, as the system's
// resolver skips them.
func parseHosts(data []byte) hosts {
	h := hosts{addrs: make(map[string][]net.IP), names: make(map[string][]string)}
	for raw := range bytes.Lines(data) {
		line, _, _ := strings.Cut(string(raw), "#")
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		addr, _, _ := strings.Cut(fields[0], "%") // a zone does not matter here
		ip := net.ParseIP(addr)
		if ip == nil {
			continue
		}
		if ip4 := ip.To4(); ip4 != nil {
			ip = ip4
		}
		for _, name := range fields[1:] {
			if !isDomainName(name) {
				continue
			}
			key := canonicalHost(name)
			h.addrs[key] = append(h.addrs[key], ip)
			h.names[ip.String()] = append(h.names[ip.String()], key+".")
		}
	}
	return h
}

// canonicalHost lowercases a name and drops its final dot.
func canonicalHost(name string) string {
	return strings.ToLower(strings.TrimSuffix(name, "."))
}
