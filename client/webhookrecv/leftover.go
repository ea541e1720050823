package webhookrecv

import (
	"context"
	"errors"
	"net"
	"net/url"
	"syscall"
	"time"
)

// Description is the description of the webhook a program points at its
// built-in receiver: it tells those webhooks apart from the user's.
const Description = "sandview built-in receiver"

// probeTimeout bounds the connection attempt of Abandoned.
const probeTimeout = time.Second

// Abandoned reports whether a webhook URL points at a receiver on this
// machine's loopback that no longer listens, as one left behind by a
// program that ended without deleting its webhook: a connection to it is
// refused. A URL elsewhere, a receiver that answers, or one that cannot be
// told (a timeout) is not abandoned.
func Abandoned(ctx context.Context, rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		return false
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err == nil {
		conn.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}
