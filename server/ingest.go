package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"time"

	"sandview/model"
	"sandview/server/emailauth"
	"sandview/server/mailparse"
	"sandview/server/store"
)

// delivery is one received message for one or more inboxes.
type delivery struct {
	raw      []byte
	remoteIP net.IP
	helo     string
	mailFrom string
	inboxes  []*liveInbox
	// chosen replaces the authentication checks (test emails).
	chosen *model.AuthResults
}

// emailRef names a stored email of a live inbox.
type emailRef struct {
	inbox *liveInbox
	id    string
}

// deliver parses, checks, seals and stores a message once per inbox, then
// announces it. It returns when the emails are committed (durably with a
// data directory). Inboxes deleted meanwhile are skipped.
func (s *Server) deliver(ctx context.Context, d delivery) (out []emailRef, err error) {
	s.signer.ingestStarted()
	defer func() {
		var unsigned []emailRef
		for _, e := range out {
			if s.signsLater(e.inbox) {
				unsigned = append(unsigned, e)
			}
		}
		s.signer.ingestDone(unsigned)
	}()
	msg := mailparse.Parse(d.raw)
	ip := ""
	if d.remoteIP != nil {
		ip = d.remoteIP.String()
	}
	var auth model.AuthResults
	if d.chosen != nil {
		auth = *d.chosen
	} else {
		for _, in := range d.inboxes {
			if in.EmailAuth {
				auth = s.checkAuth(ctx, d, msg)
				break
			}
		}
	}
	skipped := emailauth.Skipped(ip)
	receivedAt := s.cfg.Now().UTC()

	var parsedChecked, parsedSkipped []byte
	entries := make([]*liveEmail, 0, len(d.inboxes))
	emails := make([]*store.Email, 0, len(d.inboxes))
	events := make([]Event, 0, 2*len(d.inboxes))
	for _, in := range d.inboxes {
		inboxAuth, parsed := auth, &parsedChecked
		if !in.EmailAuth {
			inboxAuth, parsed = skipped, &parsedSkipped
		}
		if *parsed == nil {
			var err error
			if *parsed, err = parsedJSON(msg, inboxAuth); err != nil {
				return nil, err
			}
		}
		id := s.ids.next()
		email, stream, err := s.buildEmail(in, id, msg, receivedAt, *parsed, d.raw)
		if err != nil {
			return nil, err
		}
		emails = append(emails, email)
		entries = append(entries, &liveEmail{id: id, inbox: in, size: email.Size()})
		received := &ReceivedEmail{Message: msg, Auth: inboxAuth, ReceivedAt: receivedAt}
		events = append(events,
			Event{Type: model.EventEmailReceived, At: receivedAt, Inbox: in.ref(), EmailID: id, Received: received, Stream: stream},
			Event{Type: model.EventEmailStored, At: receivedAt, Inbox: in.ref(), EmailID: id})
	}
	return s.commitEmails(ctx, entries, emails, events)
}

// commitEmails reserves room for new emails, evicting the oldest when a
// limit is reached, commits them and publishes the events.
func (s *Server) commitEmails(ctx context.Context, entries []*liveEmail, emails []*store.Email, events []Event) ([]emailRef, error) {
	victims, gone := s.reg.reserve(entries)
	batch := store.Batch{Put: make([]*store.Email, 0, len(emails))}
	out := make([]emailRef, 0, len(entries))
	kept := events[:0]
	for i, e := range emails {
		if gone[e.ID] {
			continue
		}
		batch.Put = append(batch.Put, e)
		out = append(out, emailRef{inbox: entries[i].inbox, id: e.ID})
		kept = append(kept, events[2*i], events[2*i+1])
	}
	for _, v := range victims {
		batch.Delete = append(batch.Delete, store.EmailKey{InboxHash: v.inbox.Hash, ID: v.id})
	}
	if len(batch.Put) == 0 && len(batch.Delete) == 0 {
		return out, nil
	}
	if err := s.commit(ctx, batch, kept); err != nil {
		for _, e := range batch.Put {
			s.reg.forget(e.ID)
		}
		return nil, fmt.Errorf("store email: %w", err)
	}
	now := s.cfg.Now().UTC()
	for _, v := range victims {
		s.publish(Event{Type: model.EventEmailDeleted, At: now, Inbox: v.inbox.ref(), EmailID: v.id, Reason: model.DeleteReasonEviction})
	}
	s.publish(kept...)
	return out, nil
}

// metadataJSON is the decoded metadata of an email record.
func metadataJSON(id string, msg *mailparse.Message, receivedAt string) ([]byte, error) {
	to := msg.To
	if to == nil {
		to = []string{}
	}
	data, err := json.Marshal(struct {
		ID         string   `json:"id"`
		From       string   `json:"from"`
		To         []string `json:"to"`
		Subject    string   `json:"subject"`
		ReceivedAt string   `json:"receivedAt"`
	}{id, msg.From, to, msg.Subject, receivedAt})
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	return data, nil
}

// parsedJSON is the decoded parsed content of an email record.
func parsedJSON(msg *mailparse.Message, auth model.AuthResults) ([]byte, error) {
	content := msg.Content
	content.AuthResults = auth
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
func (s *Server) signsLater(in *liveInbox) bool {
	return in.Encrypted && !s.cfg.SignAtIngest
}

// buildEmail makes the stored form of an email for one inbox and its
// event-stream JSON. For an encrypted inbox all three payloads are
// encrypted in one envelope (the metadata keeps its ct_kem, the others
// share it); the metadata is signed, and so are the parsed and raw payloads
// with Config.SignAtIngest; otherwise the signer signs them later.
func (s *Server) buildEmail(in *liveInbox, id string, msg *mailparse.Message, receivedAt time.Time, parsed, raw []byte) (*store.Email, []byte, error) {
	meta, err := metadataJSON(id, msg, formatTime(receivedAt))
	if err != nil {
		return nil, nil, err
	}
	email := &store.Email{ID: id, InboxHash: in.Hash, ReceivedAt: receivedAt}
	if !in.Encrypted {
		email.Metadata, email.Parsed, email.Raw = meta, parsed, raw
		return email, streamJSON(in.Hash, id, nil, base64.StdEncoding.EncodeToString(meta)), nil
	}
	env, err := in.sealer.NewEnvelope()
	if err != nil {
		return nil, nil, err
	}
	defer env.Close()
	parts := []struct {
		dst       *[]byte
		plaintext []byte
		aad       string
		signLater store.Parts
		ownKEM    bool // the metadata carries the envelope's ct_kem
	}{
		{&email.Metadata, meta, s.aadPrefix + ":metadata", 0, true},
		{&email.Parsed, parsed, s.aadPrefix + ":parsed", store.PartParsed, false},
		{&email.Raw, raw, s.aadPrefix + ":raw", store.PartRaw, false},
	}
	for _, p := range parts {
		seal := env.Seal
		if p.signLater != 0 && s.signsLater(in) {
			seal = env.Encrypt
			email.Unsigned |= p.signLater
		}
		sealed, err := seal(p.plaintext, []byte(p.aad), p.ownKEM)
		if err != nil {
			return nil, nil, fmt.Errorf("seal %s: %w", p.aad, err)
		}
		*p.dst = sealed
	}
	metaJSON, err := in.sealer.AppendJSON(nil, email.Metadata, nil)
	if err != nil {
		return nil, nil, err
	}
	return email, streamJSON(in.Hash, id, metaJSON, ""), nil
}
