package dnsresolve

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// ednsSize is the UDP payload size queries advertise (the DNS flag day
// 2020 value); larger answers come truncated and are asked again over TCP.
const ednsSize = 1232

// exchange asks the servers one question until one answers or ctx ends.
// The first query goes to the first server; while nothing has answered,
// the question is sent again to the next server after retransmit, then
// after twice that, and so on, and every query stays open until ctx ends,
// so the first answer to any of them wins. A truncated answer is asked
// again over TCP. A server whose answer cannot be used (it does not parse
// or answers another question) is not asked again; when every server has
// answered so, the lookup ends as misbehaving. Otherwise, when ctx ends
// first, it ends as timed out.
func exchange(ctx context.Context, servers []string, retransmit time.Duration, q question) answer {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type reply struct {
		server string
		msg    *dns.Msg
		err    error
	}
	replies := make(chan reply, 1)
	send := func(server string) {
		go func() {
			msg, err := ask(ctx, server, q)
			select {
			case replies <- reply{server, msg, err}:
			case <-ctx.Done():
			}
		}()
	}
	timer := time.NewTimer(retransmit)
	defer timer.Stop()
	unusable := make(map[string]bool)
	sent, last := 0, servers[0]
	next := func() {
		for range servers {
			server := servers[sent%len(servers)]
			sent++
			if !unusable[server] {
				send(server)
				last = server
				return
			}
		}
	}
	next()
	for wait := retransmit; ; {
		select {
		case r := <-replies:
			if r.err == nil {
				a := parseAnswer(r.msg, q.qtype)
				a.server = r.server
				return a
			}
			if isUnusable(r.err) {
				unusable[r.server] = true
				if len(unusable) == len(servers) {
					return answer{outcome: misbehaving, server: r.server}
				}
			}
		case <-timer.C:
			next()
			wait *= 2
			timer.Reset(wait)
		case <-ctx.Done():
			return answer{outcome: timedOut, server: last}
		}
	}
}

// errUnusable marks a reply that arrived but cannot be used.
var errUnusable = errors.New("unusable DNS answer")

func isUnusable(err error) bool { return errors.Is(err, errUnusable) }

// ask sends one query to server over UDP, and over TCP when the answer is
// truncated, and checks that the reply answers it.
func ask(ctx context.Context, server string, q question) (*dns.Msg, error) {
	m := new(dns.Msg)
	m.SetQuestion(q.name, q.qtype)
	m.SetEdns0(ednsSize, false)
	reply, err := exchangeOver(ctx, "udp", server, m)
	if err == nil && reply.Truncated {
		reply, err = exchangeOver(ctx, "tcp", server, m)
	}
	if err != nil {
		return nil, err
	}
	if !reply.Response || len(reply.Question) != 1 || reply.Question[0].Qtype != q.qtype ||
		reply.Question[0].Qclass != dns.ClassINET || !strings.EqualFold(reply.Question[0].Name, q.name) {
		return nil, errUnusable
	}
	return reply, nil
}

// exchangeOver makes one exchange on a connection of its own, which is
// closed as soon as ctx ends.
func exchangeOver(ctx context.Context, network, server string, m *dns.Msg) (*dns.Msg, error) {
	client := &dns.Client{Net: network, UDPSize: ednsSize}
	if deadline, ok := ctx.Deadline(); ok {
		client.Timeout = time.Until(deadline)
	}
	conn, err := client.DialContext(ctx, server)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	reply, _, err := client.ExchangeWithConnContext(ctx, m, conn)
	if err != nil && ctx.Err() == nil && reply != nil {
		return nil, errors.Join(errUnusable, err) // it answered, but not in a form that parses
	}
	return reply, err
}
