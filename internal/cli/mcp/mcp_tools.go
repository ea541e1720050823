package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sandview/client"
	"sandview/internal/cli/email"
	"sandview/model"
	"sandview/model/extract"
	"sandview/model/termtext"
)

// The tools of `sandview mcp`. Each checks its input (the SDK checks it
// against the schema first) and answers bad input with a tool error. What
// a mail says is untrusted: it is sanitized (termtext) before it leaves.

// mcpMaxWait bounds a tool's wait; mcpMaxCount the mails one wait takes.
const (
	mcpMaxWait  = 10 * time.Minute
	mcpMaxCount = 100
)

// mcpWaitFilters are the filters of `sandview wait`, as tool arguments.
type mcpWaitFilters struct {
	Inbox   string `json:"inbox,omitempty" jsonschema:"the inbox's address (may be left out when one inbox is known)"`
	Subject string `json:"subject,omitempty" jsonschema:"regular expression the subject must match"`
	From    string `json:"from,omitempty" jsonschema:"regular expression the sender must match"`
	To      string `json:"to,omitempty" jsonschema:"only mail sent to this address (a catch-all holds mail for many)"`
	Since   string `json:"since,omitempty" jsonschema:"only mail received since a duration ago (10m) or a timestamp (RFC 3339)"`
	New     bool   `json:"new,omitempty" jsonschema:"only mail that arrives after the call starts"`
	Timeout string `json:"timeout,omitempty" jsonschema:"how long to wait: 30s (the default), 2m, at most 10m; 0 looks once"`
}

// set reports whether any filter is given.
func (f mcpWaitFilters) set() bool {
	return f.Subject != "" || f.From != "" || f.To != "" || f.Since != "" || f.New || f.Timeout != ""
}

// options are f as `sandview wait`'s flags, checked as the command checks them.
func (f mcpWaitFilters) options(count int) (email.WaitOptions, client.WaitOptions, error) {
	o := email.WaitOptions{Inbox: f.Inbox, Subject: f.Subject, From: f.From, To: f.To, Since: f.Since, OnlyNew: f.New, Count: count, Timeout: 30 * time.Second}
	if f.Timeout != "" {
		d, err := time.ParseDuration(f.Timeout)
		if err != nil || d < 0 || d > mcpMaxWait {
			return o, client.WaitOptions{}, fmt.Errorf("timeout %q: give a duration from 0 to %s (30s, 2m)", f.Timeout, mcpMaxWait)
		}
		o.Timeout = d
	}
	if count > mcpMaxCount {
		return o, client.WaitOptions{}, fmt.Errorf("count %d: at most %d", count, mcpMaxCount)
	}
	opts, err := o.ClientOptions(time.Now())
	return o, opts, err
}

// wait waits for count mails matching f; a timeout is an error.
func (m *mcpSession) wait(ctx context.Context, f mcpWaitFilters, count int) ([]model.Email, error) {
	o, opts, err := f.options(count)
	if err != nil {
		return nil, err
	}
	in, err := m.inbox(ctx, f.Inbox)
	if err != nil {
		return nil, err
	}
	emails, err := email.WaitIn(ctx, in, o, opts, m.log, "sandview mcp")
	var timeoutErr *client.TimeoutError
	if errors.As(err, &timeoutErr) {
		return nil, o.TimedOut(in)
	}
	return emails, err
}

// email fetches one readable mail of an inbox.
func (m *mcpSession) email(ctx context.Context, address, id string) (model.Email, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return model.Email{}, errors.New("give id: an email's id (wait_for_email returns it)")
	}
	in, err := m.inbox(ctx, address)
	if err != nil {
		return model.Email{}, err
	}
	e, err := in.Email(ctx, id)
	if err != nil {
		return e, err
	}
	if e.Problem != "" {
		return e, fmt.Errorf("email %s cannot be read: %s", termtext.SanitizeLine(id), termtext.SanitizeLine(e.Problem))
	}
	return e, nil
}

type mcpCreateInput struct {
	Address    string `json:"address,omitempty" jsonschema:"desired address or domain (the server picks one when left out)"`
	TTL        string `json:"ttl,omitempty" jsonschema:"time to live: a duration (90m, 2h) or seconds (3600); the server's default when left out"`
	Encryption string `json:"encryption,omitempty" jsonschema:"encrypted or plain; the server's default when left out"`
	EmailAuth  *bool  `json:"emailAuth,omitempty" jsonschema:"false skips the SPF/DKIM/DMARC/reverse-DNS checks"`
}

type Inbox struct {
	Address   string    `json:"address"`
	ExpiresAt time.Time `json:"expiresAt"`
	Encrypted bool      `json:"encrypted"`
}

func (m *mcpSession) createInbox(ctx context.Context, _ *mcp.CallToolRequest, a mcpCreateInput) (*mcp.CallToolResult, Inbox, error) {
	opts := client.CreateInboxOptions{EmailAddress: strings.TrimSpace(a.Address), EmailAuth: a.EmailAuth}
	if a.TTL != "" {
		d, err := model.ParseTTL(a.TTL)
		if err != nil {
			return nil, Inbox{}, err
		}
		opts.TTL = d
	}
	switch a.Encryption {
	case "", model.EncryptionEncrypted, model.EncryptionPlain:
		opts.Encryption = a.Encryption
	default:
		return nil, Inbox{}, fmt.Errorf("encryption %q: give encrypted or plain", a.Encryption)
	}
	in, err := m.s.Client.CreateInbox(ctx, opts)
	if err != nil {
		return nil, Inbox{}, m.toolError(err)
	}
	if err := m.keep(in); err != nil {
		return nil, Inbox{}, m.toolError(err)
	}
	return nil, Inbox{Address: in.Address(), ExpiresAt: in.ExpiresAt(), Encrypted: in.Encrypted()}, nil
}

type mcpWaitInput struct {
	mcpWaitFilters
	Count int `json:"count,omitempty" jsonschema:"how many matching emails to wait for (default 1)"`
}

// mcpFound is one mail a wait found.
type mcpFound struct {
	ID         string    `json:"id"`
	From       string    `json:"from"`
	Subject    string    `json:"subject"`
	ReceivedAt time.Time `json:"receivedAt"`
}

type Waited struct {
	Emails []mcpFound `json:"emails"`
}

func (m *mcpSession) waitForEmail(ctx context.Context, _ *mcp.CallToolRequest, a mcpWaitInput) (*mcp.CallToolResult, Waited, error) {
	count := a.Count
	if count == 0 {
		count = 1
	}
	emails, err := m.wait(ctx, a.mcpWaitFilters, count)
	if err != nil {
		return nil, Waited{}, m.toolError(err)
	}
	out := Waited{Emails: make([]mcpFound, len(emails))}
	for i, e := range emails {
		out.Emails[i] = mcpFound{ID: e.ID, From: termtext.SanitizeLine(e.From), Subject: termtext.SanitizeLine(e.Subject), ReceivedAt: e.ReceivedAt}
	}
	return nil, out, nil
}

type mcpExtractInput struct {
	mcpWaitFilters
	ID      string `json:"id,omitempty" jsonschema:"the email's id; without it the tool first waits for one matching email, as wait_for_email does"`
	Kind    string `json:"kind" jsonschema:"link (the first link), code (a one-time code) or regex"`
	Pattern string `json:"pattern,omitempty" jsonschema:"with kind regex: the regular expression; its first group (else the match) is the value"`
}

type Extracted struct {
	Value   string `json:"value"`
	EmailID string `json:"emailId"`
	Subject string `json:"subject"`
}

// extractor reads the kind and pattern as wait --extract reads its value.
func (a mcpExtractInput) extractor() (extract.Extractor, error) {
	switch {
	case a.Kind == "regex" && a.Pattern == "":
		return extract.Extractor{}, errors.New("kind regex needs a pattern")
	case a.Kind == "regex":
		return extract.Parse(a.Pattern)
	case a.Kind != "link" && a.Kind != "code":
		return extract.Extractor{}, fmt.Errorf("kind %q: give link, code or regex", a.Kind)
	case a.Pattern != "":
		return extract.Extractor{}, fmt.Errorf("pattern goes with kind regex, not %s", a.Kind)
	}
	return extract.Parse(a.Kind)
}

func (m *mcpSession) extract(ctx context.Context, _ *mcp.CallToolRequest, a mcpExtractInput) (*mcp.CallToolResult, Extracted, error) {
	x, err := a.extractor()
	if err != nil {
		return nil, Extracted{}, err
	}
	var e model.Email
	if a.ID != "" {
		if a.mcpWaitFilters.set() {
			return nil, Extracted{}, errors.New("give id or the wait's filters, not both")
		}
		e, err = m.email(ctx, a.Inbox, a.ID)
	} else {
		var emails []model.Email
		if emails, err = m.wait(ctx, a.mcpWaitFilters, 1); err == nil {
			e = emails[0]
		}
	}
	if err != nil {
		return nil, Extracted{}, m.toolError(err)
	}
	v, ok := x.From(e)
	if !ok {
		return nil, Extracted{}, fmt.Errorf("no %s in the email %q (%s)", x, termtext.SanitizeLine(e.Subject), e.ID)
	}
	return nil, Extracted{Value: termtext.SanitizeLine(v), EmailID: e.ID, Subject: termtext.SanitizeLine(e.Subject)}, nil
}
