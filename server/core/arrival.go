package core

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/emailauth"
	"sandview/server/mailparse"
	"sandview/server/store"
)

// Arrival is one received message for one or more inboxes.
type Arrival struct {
	Raw      []byte
	RemoteIP net.IP
	Helo     string
	MailFrom string
	// AuthUser is the SMTP AUTH user name, kept with the mail ("" none).
	AuthUser string
	// Protocol names how the message came, for the Received header
	// (ProtocolESMTP, ProtocolESMTPS, with "A" after AUTH, ProtocolHTTP).
	Protocol string
	Targets  []Target
	// Chosen replaces the authentication checks (test emails).
	Chosen *model.AuthResults
	// Blackhole stores the message for no one: its webhooks are sent,
	// with fresh ids, and nothing else happens (chaos's blackhole with
	// triggerWebhooks).
	Blackhole bool
}

// Target is one inbox of an arrival with the envelope recipients it gets
// the message for: its own address, or, for the catch-all inbox, the
// recipients no inbox matched.
type Target struct {
	Inbox *Inbox
	Rcpts []string
}

// emailRef names a stored email of a live inbox.
type emailRef struct {
	inbox *Inbox
	id    string
}

// Arrive parses, checks, seals and stores a message once per target
// inbox, then announces it, and returns the ids of the stored emails. The
// authentication checks read the message as received; each stored copy
// gets its Received trace header on top (see traced), and spamd scores
// each copy as stored. It returns when the emails are
// committed (durably with a data directory). Inboxes deleted meanwhile are
// skipped. Once the core stops taking mail it returns ErrStopping.
func (c *Core) Arrive(ctx context.Context, a Arrival) ([]string, error) {
	if !c.beginWork() {
		return nil, ErrStopping
	}
	defer c.work.Done()
	out, err := c.arrive(ctx, a)
	ids := make([]string, len(out))
	for i, e := range out {
		ids[i] = e.id
	}
	return ids, err
}

func (c *Core) arrive(ctx context.Context, a Arrival) (out []emailRef, err error) {
	c.signer.ingestStarted()
	defer func() {
		var unsigned []emailRef
		for _, e := range out {
			if signsLater(e.inbox, c.opts) {
				unsigned = append(unsigned, e)
			}
		}
		c.signer.ingestDone(unsigned)
	}()
	if !c.doubts.empty() {
		if d := c.doubts.take(arrivalKey(a), c.opts.Now()); d != nil {
			return doubtWork{c}.retryDoubt(ctx, d)
		}
	}
	msg := mailparse.Parse(a.Raw)
	// Each copy's ID and Received line are made first, so that spamd
	// scores the bytes that are stored.
	receivedAt := c.opts.Now().UTC()
	ids := make([]string, len(a.Targets))
	raws := make([][]byte, len(a.Targets))
	msgs := make([]*mailparse.Message, len(a.Targets))
	for i, tg := range a.Targets {
		ids[i] = c.ids.next()
		raws[i], msgs[i] = traced(a.Raw, msg, receivedValue(a.Helo, a.RemoteIP, c.opts.Hostname, a.Protocol, ids[i], tg.Rcpts, receivedAt))
	}
	spam := c.checks.scoreSpam(ctx, raws, c.log) // alongside the authentication checks
	ip := ""
	if a.RemoteIP != nil {
		ip = a.RemoteIP.String()
	}
	var auth model.AuthResults
	if a.Chosen != nil {
		auth = *a.Chosen
	} else {
		for _, tg := range a.Targets {
			if tg.Inbox.EmailAuth {
				auth = c.checks.check(ctx, a, msg)
				break
			}
		}
	}
	analyses := spam()
	skipped := emailauth.Skipped(ip)

	refs := make([]emailRef, 0, len(a.Targets))
	emails := make([]*store.Email, 0, len(a.Targets))
	events := make([]Event, 0, 2*len(a.Targets))
	for i, tg := range a.Targets {
		in := tg.Inbox
		inboxAuth := auth
		if !in.EmailAuth {
			inboxAuth = skipped
		}
		id, raw, copyMsg := ids[i], raws[i], msgs[i]
		copyMsg.Content.SpamAnalysis = analyses[i]
		parsed, err := parsedJSON(copyMsg, inboxAuth, a.AuthUser)
		if err != nil {
			return nil, err
		}
		meta, err := metadataJSON(id, copyMsg, model.Envelope{From: a.MailFrom, To: tg.Rcpts}, FormatTime(receivedAt), c.opts.ReferenceMetadata)
		if err != nil {
			return nil, err
		}
		email, err := buildEmail(in, id, receivedAt, meta, parsed, raw, c.aadPrefix, signsLater(in, c.opts))
		if err != nil {
			return nil, err
		}
		emails = append(emails, email)
		refs = append(refs, emailRef{inbox: in, id: id})
		received := &ReceivedEmail{Message: copyMsg, Auth: inboxAuth, ReceivedAt: receivedAt}
		events = append(events,
			Event{Type: model.EventEmailReceived, At: receivedAt, Inbox: in.ref(), EmailID: id, Received: received,
				inbox: in, metadata: email.Metadata},
			Event{Type: model.EventEmailStored, At: receivedAt, Inbox: in.ref(), EmailID: id})
	}
	if a.Blackhole {
		c.Chaos().blackholeWebhooks(events)
		return nil, nil
	}
	out, err = c.commitEmails(ctx, refs, emails, events, false)
	if errors.Is(err, store.ErrInDoubt) {
		c.doubts.add(&doubt{key: arrivalKey(a), at: c.opts.Now(), refs: refs, emails: emails, events: events})
		c.log.Warn("a mail's commit is in doubt: answered as failed, its retry is stored only if it is not", "error", err)
	}
	return out, err
}

// retryDoubt commits again the emails of an arrival in doubt (see
// doubt.go) for its retry, and publishes their events once made, unless
// they were found stored and published already.
func (w doubtWork) retryDoubt(ctx context.Context, d *doubt) ([]emailRef, error) {
	c := w.c
	if d.published { // found stored, its events published
		return d.refs, nil
	}
	out, err := c.commitEmails(ctx, d.refs, d.emails, d.events, true)
	if errors.Is(err, store.ErrInDoubt) {
		c.doubts.add(d)
	}
	return out, err
}

// commitEmails commits new emails (retry: an arrival in doubt, see
// doubt.go), but those of inboxes deleted meanwhile, and publishes their
// events. The sweep enforces the storage limits (sweep.go).
func (c *Core) commitEmails(ctx context.Context, refs []emailRef, emails []*store.Email, events []Event, retry bool) ([]emailRef, error) {
	batch := store.Batch{Put: make([]*store.Email, 0, len(emails)), Retry: retry}
	out := make([]emailRef, 0, len(refs))
	kept := make([]Event, 0, len(events))
	for i, e := range emails {
		if !c.reg.holds(refs[i].inbox) {
			continue
		}
		batch.Put = append(batch.Put, e)
		out = append(out, refs[i])
		kept = append(kept, events[2*i], events[2*i+1])
	}
	if len(batch.Put) == 0 {
		return out, nil
	}
	if err := c.commit(ctx, batch, kept); err != nil {
		return nil, fmt.Errorf("store email: %w", err)
	}
	c.publish(kept...)
	return out, nil
}

// metadataJSON is the decoded metadata of an email record: id, from, to,
// subject, receivedAt and the envelope. `to` is, as the contract says, an
// array: the To header's recipients, empty when the header names none (a
// mail sent by Bcc, `To: undisclosed-recipients:;`); the envelope
// (`envelope: {from, to}`, an optional field of sandview's) holds MAIL
// FROM and the RCPT TO addresses of this copy, so a client can show whom
// such a mail was for, labelled as the envelope and never as To. The
// reference profile (reference) gives `to` as one string, the envelope
// recipient, as the official SDKs decode it, and no envelope, as the
// reference service.
func metadataJSON(id string, msg *mailparse.Message, env model.Envelope, receivedAt string, reference bool) ([]byte, error) {
	var to any = msg.To
	var envelope *model.Envelope
	switch {
	case reference:
		to = firstOf(env.To, msg.To)
	case len(msg.To) == 0:
		to = []string{}
	}
	if !reference {
		if env.To == nil {
			env.To = []string{}
		}
		envelope = &env
	}
	data, err := json.Marshal(struct {
		ID         string          `json:"id"`
		From       string          `json:"from"`
		To         any             `json:"to"`
		Subject    string          `json:"subject"`
		ReceivedAt string          `json:"receivedAt"`
		Envelope   *model.Envelope `json:"envelope,omitempty"`
	}{id, msg.From, to, msg.Subject, receivedAt, envelope})
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	return data, nil
}

// firstOf is the first element of the first non-empty list, or "".
func firstOf(lists ...[]string) string {
	for _, l := range lists {
		if len(l) > 0 {
			return l[0]
		}
	}
	return ""
}

// parsedJSON is the decoded parsed content of an email record; the SMTP
// AUTH user, when there was one, goes in its metadata extension object.
func parsedJSON(msg *mailparse.Message, auth model.AuthResults, authUser string) ([]byte, error) {
	content := msg.Content
	content.AuthResults = auth
	if authUser != "" {
		content.Metadata = maps.Clone(content.Metadata)
		if content.Metadata == nil {
			content.Metadata = map[string]any{}
		}
		content.Metadata[model.MetadataSMTPUser] = authUser
	}
	if content.Headers == nil {
		content.Headers = model.HeaderMap{}
	}
	if content.Attachments == nil {
		content.Attachments = []model.Attachment{}
	}
	if content.Links == nil {
		content.Links = []string{}
	}
	data, err := json.Marshal(content)
	if err != nil {
		return nil, fmt.Errorf("encode parsed content: %w", err)
	}
	return data, nil
}

// signsLater reports whether the inbox's parsed and raw payloads are signed
// after the SMTP answer (see signer).
func signsLater(in *Inbox, o Options) bool {
	return in.Encrypted && !o.SignAtIngest
}

// buildEmail makes the stored form of an email for one inbox. For an
// encrypted inbox all three payloads are encrypted in one envelope (the
// metadata keeps its ct_kem, the others share it), the raw one as base64
// text of the message (as the reference deployment and the official SDKs
// have it); the metadata is signed, and so are the parsed and raw payloads
// unless signLater; then the signer signs them. aad is the context's
// prefix.
func buildEmail(in *Inbox, id string, receivedAt time.Time, meta, parsed, raw []byte, aad string, signLater bool) (*store.Email, error) {
	email := &store.Email{ID: id, InboxHash: in.Hash, ReceivedAt: receivedAt}
	if !in.Encrypted {
		email.Metadata, email.Parsed, email.Raw = meta, parsed, raw
		return email, nil
	}
	env, err := in.sealer.NewEnvelope()
	if err != nil {
		return nil, err
	}
	defer env.Close()
	parts := []struct {
		dst       *[]byte
		plaintext []byte
		aad       string
		signLater store.Parts
		ownKEM    bool // the metadata carries the envelope's ct_kem
	}{
		{&email.Metadata, meta, aad + ":metadata", 0, true},
		{&email.Parsed, parsed, aad + ":parsed", store.PartParsed, false},
		{&email.Raw, base64.StdEncoding.AppendEncode(nil, raw), aad + ":raw", store.PartRaw, false},
	}
	// The payloads are laid out as the memory store keeps them (see
	// store.Email), so that it need not copy them.
	var sizes [3]int
	for i, p := range parts {
		sizes[i] = crypto.SealedSize(len(p.aad), len(p.plaintext), p.ownKEM)
	}
	groups, bufs := payloadBuffers(sizes)
	for i, p := range parts {
		appendPayload := env.AppendSeal
		if p.signLater != 0 && signLater {
			appendPayload = env.AppendEncrypt
			email.Unsigned |= p.signLater
		}
		buf := &bufs[groups[i]]
		start := len(*buf)
		if *buf, err = appendPayload(*buf, p.plaintext, []byte(p.aad), p.ownKEM); err != nil {
			return nil, fmt.Errorf("seal %s: %w", p.aad, err)
		}
		*p.dst = (*buf)[start:] // its capacity runs to its buffer's end
	}
	return email, nil
}

// payloadBuffers returns empty buffers for an email's payloads of the given
// sizes (metadata, parsed, raw), laid out as store.Layout says: payload i
// is appended to bufs[groups[i]], after those before it.
func payloadBuffers(sizes [3]int) (groups [3]int, bufs [2][]byte) {
	groups, totals := store.Layout(sizes)
	for g, n := range totals {
		if n > 0 {
			bufs[g] = make([]byte, 0, n)
		}
	}
	return groups, bufs
}
