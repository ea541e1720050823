// Package spamd scores mail with SpamAssassin's spamd: it speaks the
// spamd protocol (SPAMC/1.5, the REPORT command) over TCP and reads the
// score, the threshold and the rules that fired from the answer.
package spamd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"sandview/model"
)

// maxAnswer bounds what is read of spamd's answer.
const maxAnswer = 1 << 20

// Client asks one spamd.
type Client struct {
	// Addr is spamd's HOST:PORT.
	Addr string
	// Dialer connects (nil: a net.Dialer).
	Dialer *net.Dialer
}

// Check scores a message. It gives up when ctx ends.
func (c Client) Check(ctx context.Context, raw []byte) (model.SpamAnalysis, error) {
	d := c.Dialer
	if d == nil {
		d = &net.Dialer{}
	}
	conn, err := d.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return model.SpamAnalysis{}, fmt.Errorf("spamd %s: %w", c.Addr, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	a, err := exchange(conn, raw)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return model.SpamAnalysis{}, fmt.Errorf("spamd %s: %w", c.Addr, err)
	}
	return a, nil
}

// exchange sends the REPORT request and reads the answer.
func exchange(conn net.Conn, raw []byte) (model.SpamAnalysis, error) {
	head := fmt.Sprintf("REPORT SPAMC/1.5\r\nContent-length: %d\r\n\r\n", len(raw))
	if _, err := conn.Write(append([]byte(head), raw...)); err != nil {
		return model.SpamAnalysis{}, err
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	return parse(bufio.NewReader(io.LimitReader(conn, maxAnswer)))
}

// spamHeader is "Spam: True ; 5.7 / 5.0".
var spamHeader = regexp.MustCompile(`^(?i)(true|false|yes|no)\s*;\s*(-?[0-9.]+)\s*/\s*(-?[0-9.]+)`)

// parse reads "SPAMD/1.1 0 EX_OK", the headers, then the report.
func parse(r *bufio.Reader) (model.SpamAnalysis, error) {
	status, err := r.ReadString('\n')
	if err != nil {
		return model.SpamAnalysis{}, fmt.Errorf("no answer: %w", err)
	}
	f := strings.Fields(status)
	if len(f) < 3 || !strings.HasPrefix(f[0], "SPAMD/") {
		return model.SpamAnalysis{}, fmt.Errorf("not a spamd answer: %q", strings.TrimSpace(status))
	}
	if f[1] != "0" {
		return model.SpamAnalysis{}, fmt.Errorf("spamd refused: %s", strings.Join(f[1:], " "))
	}
	a := model.SpamAnalysis{Status: model.SpamAnalyzed}
	scored := false
	for {
		line, err := r.ReadString('\n')
		if err != nil && line == "" {
			return model.SpamAnalysis{}, fmt.Errorf("answer cut in its headers: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, _ := strings.Cut(line, ":")
		if !strings.EqualFold(strings.TrimSpace(name), "Spam") {
			continue
		}
		m := spamHeader.FindStringSubmatch(strings.TrimSpace(value))
		if m == nil {
			return model.SpamAnalysis{}, fmt.Errorf("bad Spam header %q", value)
		}
		a.IsSpam = strings.EqualFold(m[1], "true") || strings.EqualFold(m[1], "yes")
		a.Score, _ = strconv.ParseFloat(m[2], 64)
		a.RequiredScore, _ = strconv.ParseFloat(m[3], 64)
		scored = true
	}
	if !scored {
		return model.SpamAnalysis{}, fmt.Errorf("answer without a Spam header")
	}
	body, _ := io.ReadAll(r)
	a.Rules = rules(string(body))
	return a, nil
}

// ruleLine is a row of the report's table: " 2.7 MISSING_DATE  Missing Date: header".
var ruleLine = regexp.MustCompile(`^\s*(-?[0-9]+(?:\.[0-9]+)?)\s+([A-Z0-9_]+)\s*(.*)$`)

// rules reads the report's table of rules, under its "---- ----" line;
// a description that wraps continues on lines that start with spaces.
func rules(report string) []model.SpamRule {
	var out []model.SpamRule
	table := false
	for _, line := range strings.Split(report, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, "---- "):
			table = true
		case !table:
		case strings.TrimSpace(line) == "":
			table = len(out) == 0
		default:
			if m := ruleLine.FindStringSubmatch(line); m != nil {
				score, _ := strconv.ParseFloat(m[1], 64)
				out = append(out, model.SpamRule{Name: m[2], Score: score, Description: strings.TrimSpace(m[3])})
			} else if len(out) > 0 {
				last := &out[len(out)-1]
				last.Description = strings.TrimSpace(last.Description + " " + strings.TrimSpace(line))
			}
		}
	}
	return out
}
