package chaos

import (
	"context"
	"fmt"
	"math"
	"net"
	"strings"
	"time"

	"sandview/model"
)

// Reply is an SMTP reply a chaos action answers the end of DATA with.
type Reply struct {
	Code     int
	Enhanced [3]int
	Text     string
}

// EnhancedText is the enhanced status code as text ("4.7.1").
func (r Reply) EnhancedText() string {
	return fmt.Sprintf("%d.%d.%d", r.Enhanced[0], r.Enhanced[1], r.Enhanced[2])
}

// The replies of chaos.md, section 4.5.
var (
	temporaryReplies = []Reply{
		{421, [3]int{4, 7, 0}, "Service temporarily unavailable"},
		{450, [3]int{4, 2, 1}, "Mailbox busy, try again later"},
		{451, [3]int{4, 3, 0}, "Temporary processing error"},
		{452, [3]int{4, 3, 1}, "Insufficient storage"},
	}
	permanentReplies = []Reply{
		{550, [3]int{5, 1, 1}, "Mailbox not found"},
		{551, [3]int{5, 1, 6}, "User not local"},
		{552, [3]int{5, 3, 4}, "Message size exceeds limit"},
		{553, [3]int{5, 1, 3}, "Mailbox name invalid"},
		{554, [3]int{5, 0, 0}, "Transaction failed"},
	}
	// GreylistReply refuses a greylisted attempt.
	GreylistReply = Reply{451, [3]int{4, 7, 1}, "Greylisting in operation, try again later"}
)

// The greylisting constants of chaos.md, section 4.4: entries first seen
// longer ago than GreylistForget are forgotten every GreylistSweep.
const (
	GreylistSweep  = time.Minute
	GreylistForget = 10 * time.Minute
)

// Envelope is what chaos knows of one message.
type Envelope struct {
	// Inbox is the primary inbox's address (lower case).
	Inbox string
	// Remote is the client's IP address (see ClientIP), Sender the
	// envelope sender ("" for MAIL FROM:<>).
	Remote, Sender string
}

// ClientIP is an address as greylisting tracks it: IPv4-mapped addresses
// as IPv4, no zone.
func ClientIP(ip net.IP) string {
	if ip == nil {
		return ""
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	return ip.String()
}

// Greylister counts an attempt of key (see store.ChaosStore).
type Greylister func(ctx context.Context, key string, window time.Duration, maxAttempts int) (attempt int, pass bool, err error)

// Outcome is what chaos does to one message. Action.Type "" is nothing:
// normal delivery.
type Outcome struct {
	Action model.ChaosAction
	// Reply answers the message (random_error, greylist); Close closes
	// the connection after it (421).
	Reply Reply
	Close bool
	// Delay holds back the success reply (latency).
	Delay time.Duration
}

// Applied reports whether an action fired.
func (o Outcome) Applied() bool { return o.Action.Type != "" }

// Decide evaluates an active cfg for one message in the fixed order
// (connectionDrop, greylist, randomError, blackhole, latency); draw
// returns numbers in [0, 1).
func Decide(ctx context.Context, cfg model.ChaosConfig, env Envelope, draw func() float64, grey Greylister) (Outcome, error) {
	out := Outcome{Action: model.ChaosAction{Remote: env.Remote, Sender: env.Sender}}
	fires := func(p float64) bool { return draw() <= p }
	if d := cfg.ConnectionDrop; d != nil && d.Enabled && fires(d.Probability) {
		out.Action.Type, out.Action.Graceful = model.ChaosTypeConnectionDrop, d.Graceful
		return out, nil
	}
	if g := cfg.Greylist; g != nil && g.Enabled && env.Sender != "" {
		window := time.Duration(g.RetryWindowMs) * time.Millisecond
		if window <= 0 {
			window = DefaultRetryWindowMs * time.Millisecond
		}
		maxAttempts := int(math.Ceil(g.MaxAttempts))
		if maxAttempts < 1 {
			maxAttempts = DefaultMaxAttempts
		}
		attempt, pass, err := grey(ctx, greylistKey(g.TrackBy, env), window, maxAttempts)
		if err != nil {
			return Outcome{}, fmt.Errorf("greylisting: %w", err)
		}
		if !pass {
			out.Action.Type, out.Reply = model.ChaosTypeGreylist, GreylistReply
			out.Action.Attempt, out.Action.MaxAttempts = attempt, maxAttempts
			out.Action.Code, out.Action.Enhanced = out.Reply.Code, out.Reply.EnhancedText()
			return out, nil
		}
	}
	if e := cfg.RandomError; e != nil && e.Enabled && fires(e.ErrorRate) {
		out.Action.Type, out.Reply = model.ChaosTypeRandomError, pickReply(e.ErrorTypes, draw)
		out.Action.Code, out.Action.Enhanced = out.Reply.Code, out.Reply.EnhancedText()
		out.Close = out.Reply.Code == 421
		return out, nil
	}
	if b := cfg.Blackhole; b != nil && b.Enabled {
		out.Action.Type, out.Action.Webhooks = model.ChaosTypeBlackhole, b.TriggerWebhooks
		return out, nil
	}
	if l := cfg.Latency; l != nil && l.Enabled && fires(l.Probability) {
		delay := l.MaxDelayMs
		if l.Jitter && l.MinDelayMs < l.MaxDelayMs {
			delay = l.MinDelayMs + math.Floor(draw()*(l.MaxDelayMs-l.MinDelayMs))
		}
		out.Action.Type, out.Action.DelayMs = model.ChaosTypeLatency, int64(delay)
		out.Delay = time.Duration(delay * float64(time.Millisecond))
		return out, nil
	}
	return Outcome{}, nil
}

// greylistKey is the tracking key, scoped to the inbox.
func greylistKey(trackBy string, env Envelope) string {
	sender := strings.ToLower(env.Sender)
	switch trackBy {
	case model.ChaosTrackIP:
		return env.Inbox + "|ip|" + env.Remote
	case model.ChaosTrackSender:
		return env.Inbox + "|sender|" + sender
	}
	return env.Inbox + "|ip_sender|" + env.Remote + "|" + sender
}

// pickReply draws a reply from the pool of the error types; an empty
// pool is 421.
func pickReply(types []string, draw func() float64) Reply {
	var pool []Reply
	for _, t := range types {
		switch t {
		case model.ChaosErrorTemporary:
			pool = append(pool, temporaryReplies...)
		case model.ChaosErrorPermanent:
			pool = append(pool, permanentReplies...)
		}
	}
	if len(pool) == 0 {
		return temporaryReplies[0]
	}
	return pool[min(int(draw()*float64(len(pool))), len(pool)-1)]
}
