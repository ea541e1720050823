package cli

import (
	"net"
	"os"
)

// advertisedHost is the host teammates reach a listener on addr by: the
// --advertise host when given, else the listener's own host, except
// that a listener on all interfaces (0.0.0.0, ::, no host) is this
// machine's name (localhost when it has none): "[::]" or "0.0.0.0" reach
// nobody's box.
func advertisedHost(addr, advertise string) string {
	if advertise != "" {
		return advertise
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return host
	}
	if name, err := os.Hostname(); err == nil && name != "" {
		return name
	}
	return "localhost"
}

// advertised is addr (host:port) with its host as advertisedHost says.
func advertised(addr, advertise string) string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return net.JoinHostPort(advertisedHost(addr, advertise), port)
}
