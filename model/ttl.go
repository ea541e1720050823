package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseTTL reads an inbox TTL as people type it: a number of seconds
// ("3600") or a Go duration ("90m", "2h"). Empty means the contract's
// default. The result is whole seconds within the contract's bounds
// (1m to 168h); anything else is an error that says what is accepted.
func ParseTTL(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultTTLSeconds * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, nerr := strconv.Atoi(s)
		if nerr != nil {
			return 0, fmt.Errorf("ttl %q: want a number of seconds (3600) or a duration (1h30m)", s)
		}
		d = time.Duration(secs) * time.Second
	}
	if d%time.Second != 0 {
		return 0, fmt.Errorf("ttl %s: must be whole seconds", d)
	}
	if d < MinTTLSeconds*time.Second || d > MaxTTLSeconds*time.Second {
		return 0, fmt.Errorf("ttl %s: must be between 1m and 168h (7 days)", d)
	}
	return d, nil
}
