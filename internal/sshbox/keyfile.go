package sshbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// maxLineBytes is the longest line of an authorized_keys file that is
// read (an RSA key of 16384 bits takes about 3 KiB); a longer line is
// reported and skipped.
const maxLineBytes = 64 << 10

// lineProblem is a line of an authorized_keys file that is not loaded.
type lineProblem struct {
	line int
	err  error
}

// parseAuthorizedKeys reads the authorized_keys format described in the
// package documentation. A line that is not loaded is reported by number
// and the others still load; the error is the reader's.
func parseAuthorizedKeys(r io.Reader) (map[string]grant, []lineProblem, error) {
	grants := map[string]grant{}
	var problems []lineProblem
	err := readLines(r, maxLineBytes, func(n int, text []byte, tooLong bool) {
		if tooLong {
			problems = append(problems, lineProblem{n, fmt.Errorf("line longer than %d bytes", maxLineBytes)})
			return
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 || text[0] == '#' {
			return
		}
		g, err := parseGrant(text)
		if err != nil {
			problems = append(problems, lineProblem{n, err})
			return
		}
		if first, dup := grants[g.ID]; dup {
			problems = append(problems, lineProblem{n, fmt.Errorf("the key of line %d again (the first one counts)", first.line)})
			return
		}
		g.line = n
		grants[g.ID] = g
	})
	if err != nil {
		return grants, problems, fmt.Errorf("read authorized keys: %w", err)
	}
	return grants, problems, nil
}

// readLines calls fn with each line of r (numbered from 1, without its
// line ending); a line longer than max is not kept: fn gets it empty with
// tooLong set, and reading goes on at the next line.
func readLines(r io.Reader, max int, fn func(n int, line []byte, tooLong bool)) error {
	br := bufio.NewReaderSize(r, 4096)
	var line []byte
	tooLong := false
	for n := 1; ; {
		chunk, isPrefix, err := br.ReadLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong, line = true, line[:0]
			} else {
				line = append(line, chunk...)
			}
		}
		if isPrefix {
			continue
		}
		fn(n, line, tooLong)
		n++
		line, tooLong = line[:0], false
	}
}

// parseGrant reads one line holding a key: options, key, comment.
func parseGrant(text []byte) (grant, error) {
	key, comment, options, rest, err := gossh.ParseAuthorizedKey(text)
	if err != nil {
		return grant{}, fmt.Errorf("not a public key: %w", err)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return grant{}, errors.New("more than one key on the line")
	}
	g, err := parseOptions(options)
	if err != nil {
		return grant{}, err
	}
	g.ID = gossh.FingerprintSHA256(key)
	g.Name = userName(comment, g.ID)
	g.options = strings.Join(options, ",")
	return g, nil
}

// flagOptions are the OpenSSH options without a value that sandview
// accepts: restrict, no-pty and pty decide whether the key may ask for a
// terminal (as in OpenSSH); the others are already true of every SSH user
// of sandview (no forwarding of any kind, no rc file).
var flagOptions = map[string]bool{
	"restrict": true, "no-pty": true, "pty": true,
	"no-port-forwarding": true, "no-agent-forwarding": true,
	"no-x11-forwarding": true, "no-user-rc": true,
}

// valueOptions are the options that take a value (name="value").
var valueOptions = map[string]bool{"role": true, "from": true, "expiry-time": true}

// parseOptions reads the options of a key into a grant; an option that
// is not supported, or a bad value, refuses the key, named in the error.
func parseOptions(options []string) (grant, error) {
	g := grant{User: User{Role: RoleMember}}
	pty, noPty := false, false
	for _, opt := range options {
		name, raw, hasValue := strings.Cut(opt, "=")
		name = strings.ToLower(name)
		switch {
		case !flagOptions[name] && !valueOptions[name]:
			return grant{}, fmt.Errorf("option %s is not supported by sandview: the key is not loaded", name)
		case hasValue && !valueOptions[name]:
			return grant{}, fmt.Errorf("option %s takes no value: the key is not loaded", name)
		case !hasValue && valueOptions[name]:
			return grant{}, fmt.Errorf("option %s needs a value: the key is not loaded", name)
		}
		value, err := "", error(nil)
		if hasValue {
			if value, err = dequote(raw); err != nil {
				return grant{}, fmt.Errorf("option %s: %w: the key is not loaded", name, err)
			}
		}
		switch name {
		case "role":
			if !validRole(value) {
				return grant{}, fmt.Errorf("option role=%q: not viewer, member or admin: the key is not loaded", value)
			}
			g.Role = value
		case "from":
			if g.from, err = parseHostPatterns(value); err != nil {
				return grant{}, fmt.Errorf("option from: %w: the key is not loaded", err)
			}
		case "expiry-time":
			if g.expires, err = parseExpiry(value); err != nil {
				return grant{}, fmt.Errorf("option expiry-time: %w: the key is not loaded", err)
			}
		case "restrict", "no-pty":
			noPty = true
		case "pty":
			pty = true
		}
	}
	g.noPty = noPty && !pty
	return g, nil
}

// dequote takes the double quotes off an option's value; \" inside is a
// quote (as in OpenSSH).
func dequote(v string) (string, error) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", errors.New(`the value is not in double quotes`)
	}
	return strings.ReplaceAll(v[1:len(v)-1], `\"`, `"`), nil
}

// parseExpiry reads an expiry-time: YYYYMMDD, YYYYMMDDHHMM or
// YYYYMMDDHHMMSS, in UTC (a trailing Z says so again).
func parseExpiry(v string) (time.Time, error) {
	layouts := map[int]string{8: "20060102", 12: "200601021504", 14: "20060102150405"}
	digits := strings.TrimSuffix(v, "Z")
	layout, ok := layouts[len(digits)]
	if !ok {
		return time.Time{}, fmt.Errorf("%q is not YYYYMMDD[HHMM[SS]][Z]", v)
	}
	t, err := time.ParseInLocation(layout, digits, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a time: %w", v, err)
	}
	return t, nil
}
