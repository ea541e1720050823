package mcp

import (
	"context"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sandview/internal/cli/email"
	"sandview/model"
	"sandview/model/extract"
	"sandview/model/termtext"
	"sandview/tui/htmltext"
)

// addTools registers the tools of `sandview mcp` (see mcp_tools.go).
func (m *mcpSession) addTools(srv *mcp.Server) error {
	create, err := mcpSchema[mcpCreateInput]("encryption", "encrypted", "plain")
	if err != nil {
		return err
	}
	extractIn, err := mcpSchema[mcpExtractInput]("kind", "link", "code", "regex")
	if err != nil {
		return err
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "create_inbox", InputSchema: create,
		Description: "Create an inbox on the sandbox and keep its key in sandview's keystore. Returns its address (give it to the app under test) and when it expires."}, m.createInbox)
	mcp.AddTool(srv, &mcp.Tool{Name: "wait_for_email",
		Description: "Wait until an inbox holds count emails matching every filter given (mail already there counts unless new or since says otherwise). Returns each one's id, sender, subject and receipt time; a timeout is an error."}, m.waitForEmail)
	mcp.AddTool(srv, &mcp.Tool{Name: "extract", InputSchema: extractIn,
		Description: "Take one value out of an email: its first link, the one-time code a human would type, or a regular expression's match. Give the email's id, or the filters of wait_for_email to wait for it first."}, m.extract)
	mcp.AddTool(srv, &mcp.Tool{Name: "read_email",
		Description: "Read one email by its id: headers, text, the HTML part as text, links, one-time codes, attachments (names only) and the authentication verdict."}, m.readEmail)
	mcp.AddTool(srv, &mcp.Tool{Name: "check_email",
		Description: "Check one email as `sandview email check --json` does, with its SPF/DKIM/DMARC verdict: HTML compatibility across email clients, deceptive links, spam score and, with links: true, each link's HTTP status (public addresses only)."}, m.checkEmail)
	return nil
}

// mcpSchema is T's inferred input schema with the property name limited
// to values.
func mcpSchema[T any](name string, values ...any) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("input schema of %T: %w", *new(T), err)
	}
	p, ok := s.Properties[name]
	if !ok {
		return nil, fmt.Errorf("input schema of %T: no property %q", *new(T), name)
	}
	p.Enum = values
	return s, nil
}

type mcpEmailInput struct {
	Inbox string `json:"inbox,omitempty" jsonschema:"the inbox's address (may be left out when one inbox is known)"`
	ID    string `json:"id" jsonschema:"the email's id (wait_for_email returns it)"`
}

// Email is an email as read_email returns it: every text sanitized,
// attachments by name only.
type Email struct {
	ID          string                 `json:"id"`
	From        string                 `json:"from"`
	To          []string               `json:"to"`
	Cc          []string               `json:"cc"`
	Subject     string                 `json:"subject"`
	Date        string                 `json:"date,omitempty"`
	ReceivedAt  time.Time              `json:"receivedAt"`
	Headers     map[string]string      `json:"headers"`
	Text        string                 `json:"text"`
	HTMLText    string                 `json:"htmlText,omitempty" jsonschema:"the HTML part laid out as text, its links numbered"`
	Links       []string               `json:"links"`
	Codes       []string               `json:"codes" jsonschema:"one-time codes, the likeliest first"`
	Attachments []email.AttachmentView `json:"attachments"`
	Verdict     string                 `json:"verdict" jsonschema:"the authentication verdict: pass, fail, not verified or not checked"`
	Reasons     []string               `json:"reasons" jsonschema:"why the verdict is not pass"`
}

func (m *mcpSession) readEmail(ctx context.Context, _ *mcp.CallToolRequest, a mcpEmailInput) (*mcp.CallToolResult, Email, error) {
	e, err := m.email(ctx, a.Inbox, a.ID)
	if err != nil {
		return nil, Email{}, m.toolError(err)
	}
	v := email.ViewOf(e)
	out := Email{ID: e.ID, From: termtext.SanitizeLine(e.From), To: sanitizeLines(v.To), Cc: sanitizeLines(v.Cc),
		Subject: termtext.SanitizeLine(e.Subject), ReceivedAt: e.ReceivedAt, Headers: map[string]string{},
		Text: termtext.Sanitize(e.Text), Links: sanitizeLines(v.Links), Codes: sanitizeLines(extract.Codes(e)),
		Attachments: v.Attachments, Verdict: v.Verdict, Reasons: sanitizeLines(v.Reasons)}
	if v.Date != nil {
		out.Date = v.Date.Format(time.RFC3339)
	}
	for k, val := range e.Headers {
		out.Headers[termtext.SanitizeLine(k)] = termtext.SanitizeLine(val)
	}
	for i := range out.Attachments {
		out.Attachments[i].Filename = termtext.SanitizeLine(out.Attachments[i].Filename)
		out.Attachments[i].ContentType = termtext.SanitizeLine(out.Attachments[i].ContentType)
	}
	if e.HTML != "" {
		out.HTMLText = htmltext.Render(e.HTML, 100, htmltext.Options{Links: e.Links}).Text
	}
	return nil, out, nil
}

// sanitizeLines is each line of lines sanitized; never nil.
func sanitizeLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = termtext.SanitizeLine(l)
	}
	return out
}

type mcpCheckInput struct {
	mcpEmailInput
	Links bool `json:"links,omitempty" jsonschema:"also check every link's HTTP status (loopback and private addresses are not checked)"`
}

// mcpCheck is what check_email returns: email check --json's report with
// the authentication verdict.
type mcpCheck struct {
	Verdict     string               `json:"verdict"`
	Reasons     []string             `json:"reasons"`
	AuthResults model.AuthResults    `json:"authResults"`
	Validation  model.AuthValidation `json:"validation"`
	email.CheckView
}

func (m *mcpSession) checkEmail(ctx context.Context, _ *mcp.CallToolRequest, a mcpCheckInput) (*mcp.CallToolResult, any, error) {
	e, err := m.email(ctx, a.Inbox, a.ID)
	if err != nil {
		return nil, nil, m.toolError(err)
	}
	// The one check function: `email check`'s (links never on private addresses).
	v, err := email.Check(ctx, e, email.CheckOptions{Links: a.Links})
	if err != nil {
		return nil, nil, m.toolError(err)
	}
	return nil, mcpCheck{Verdict: e.AuthResults.Verdict().Word(), Reasons: sanitizeLines(e.AuthResults.Reasons()),
		AuthResults: e.AuthResults, Validation: e.AuthResults.Validate(), CheckView: v}, nil
}
