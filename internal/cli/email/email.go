// Package email is the `sandview email` commands (list, show, raw,
// delete, attachments, links, open, render, check, expect, snapshot) and
// `sandview wait`, which shares their JSON views and inbox lookup: what a
// script or a person reads of the mail an inbox holds. The root command
// (internal/cli) adds them to its tree with NewCommand and NewWaitCommand.
package email

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/termtext"
)

func NewCommand(g *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "email", Short: "List, show, fetch raw, take apart, open and delete emails"}
	var inbox string
	cmd.PersistentFlags().StringVar(&inbox, "inbox", "", "inbox address (may be left out when one inbox is known)")
	cmd.AddCommand(newEmailListCommand(g, &inbox), newEmailShowCommand(g, &inbox),
		newEmailRawCommand(g, &inbox), newEmailDeleteCommand(g, &inbox),
		newEmailAttachmentsCommand(g, &inbox), newEmailLinksCommand(g, &inbox), newEmailOpenCommand(g, &inbox),
		newEmailCheckCommand(g, &inbox), newEmailExpectCommand(g, &inbox), newEmailSnapshotCommand(g, &inbox),
		newEmailRenderCommand(g, &inbox))
	return cmd
}

// AttachmentView is an attachment without its content.
type AttachmentView struct {
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
}

// View is how the CLI prints an email.
type View struct {
	ID      string   `json:"id"`
	From    string   `json:"from"`
	To      []string `json:"to"`
	Cc      []string `json:"cc"`
	Subject string   `json:"subject"`
	// Envelope is MAIL FROM and the RCPT TOs of this copy, when the server
	// sent them (never made up from the headers).
	Envelope *model.Envelope `json:"envelope,omitempty"`
	// Date is the Date header (the sender's zone kept); null when missing or
	// unparsable, DateProblem then says which.
	Date        *time.Time `json:"date"`
	DateProblem string     `json:"dateProblem,omitempty"`
	// ReceivedAt is when the server received the mail.
	ReceivedAt  time.Time            `json:"receivedAt"`
	IsRead      bool                 `json:"isRead"`
	Text        string               `json:"text"`
	HTML        string               `json:"html"`
	Attachments []AttachmentView     `json:"attachments"`
	Links       []string             `json:"links"`
	AuthResults model.AuthResults    `json:"authResults"`
	Validation  model.AuthValidation `json:"validation"`
	// Verdict is model.AuthResults.Verdict in words: pass, fail, not
	// verified or not checked ("" when the content could not be read).
	Verdict string `json:"verdict,omitempty"`
	// Reasons is model.AuthResults.Reasons: why the verdict is not pass,
	// such as "DKIM: the DNS did not answer".
	Reasons  []string `json:"reasons,omitempty"`
	SMTPUser string   `json:"smtpUser,omitempty"` // the SMTP AUTH login
	Problem  string   `json:"problem,omitempty"`
}

func ViewOf(e model.Email) View {
	v := View{ID: e.ID, From: e.From, To: e.To, Subject: e.Subject, ReceivedAt: e.ReceivedAt,
		IsRead: e.IsRead, Text: e.Text, HTML: e.HTML, Links: e.Links, AuthResults: e.AuthResults,
		Validation: e.AuthResults.Validate(), SMTPUser: e.SMTPUser(), Problem: e.Problem, Attachments: []AttachmentView{}}
	if v.To == nil {
		v.To = []string{}
	}
	if e.Envelope != nil {
		env := model.Envelope{From: e.Envelope.From, To: model.AddrSpecs(e.Envelope.To)}
		v.Envelope = &env
	}
	v.Cc = e.Cc()
	if v.Cc == nil {
		v.Cc = []string{}
	}
	if e.HasContent && e.Problem == "" {
		v.Verdict = e.AuthResults.Verdict().Word()
		v.Reasons = e.AuthResults.Reasons()
		if sent, err := e.SentDate(); err != nil {
			v.DateProblem = err.Error()
		} else {
			v.Date = &sent
		}
	}
	if v.Links == nil {
		v.Links = []string{}
	}
	for _, a := range e.Attachments {
		v.Attachments = append(v.Attachments, AttachmentView{Filename: a.Name(), ContentType: a.ContentType, Size: a.Size})
	}
	return v
}

// withInbox connects and picks the inbox for an email command.
func withInbox(cmd *cobra.Command, g *cmdutil.Factory, address string, fn func(*client.Inbox) error) error {
	return cmdutil.WithSession(cmd, g, func(s *cmdutil.Session) error {
		in, err := s.Inbox(cmd.Context(), address)
		if err != nil {
			return err
		}
		return fn(in)
	})
}

func newEmailListCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	var asJSON bool
	var query string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the decrypted emails of an inbox, newest first",
		Example: `  sandview email list
  sandview email list --inbox qa@sandbox.test --json
` + searchExample,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer g.CollectLessOften()()
			// A big list leaves in 64 KB writes, not in one a mail.
			out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
			list := newEmailList(out, asJSON)
			var err error
			if query != "" {
				err = cmdutil.WithSession(cmd, g, func(s *cmdutil.Session) error {
					return runSearch(cmd.Context(), s, *inbox, query, list, cmd.ErrOrStderr())
				})
			} else {
				err = withInbox(cmd, g, *inbox, func(in *client.Inbox) error {
					return listEmails(cmd.Context(), in, list)
				})
			}
			if flushErr := out.Flush(); err == nil {
				err = flushErr
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON objects")
	addSearchFlag(cmd, &query)
	return cmd
}

// listEmails prints the inbox's emails as the list arrives, one decoded
// and decrypted email at a time, each made ready to print (for JSON:
// encoded) on the client's workers. Emails that could not be opened are
// printed as such and reported in the returned error.
func listEmails(ctx context.Context, in *client.Inbox, list *emailList) error {
	var failures []error
	err := client.EachEmailAs(ctx, in, client.ListOptions{IncludeContent: true}, list.prepare, func(p preparedEmail) error {
		if p.openErr != nil {
			failures = append(failures, p.openErr)
		}
		return list.write(p)
	})
	if err != nil {
		return err
	}
	if err := list.close(); err != nil {
		return err
	}
	return errors.Join(failures...)
}

// emailList prints a list of emails as they come: a JSON array of
// View, or a table. The table's columns are aligned when it is
// closed, so it holds its rows' text (not the emails) until then.
type emailList struct {
	w     io.Writer
	json  *cmdutil.JSONArray
	table cmdutil.Table
	none  string // what an empty table prints
}

func newEmailList(w io.Writer, asJSON bool) *emailList {
	if asJSON {
		return &emailList{w: w, json: cmdutil.NewJSONArray(w)}
	}
	return &emailList{w: w, none: "no emails yet"}
}

func (l *emailList) add(e model.Email) error {
	if l.json != nil {
		return l.json.Add(ViewOf(e))
	}
	if l.table.Len() == 0 {
		l.table.Add("ID", "RECEIVED", "FROM", "TO", "SUBJECT", "AUTH")
	}
	l.table.Add(e.ID, e.ReceivedAt.Local().Format("15:04:05"), cmdutil.Truncate(termtext.SanitizeLine(e.From), 32),
		toCell(e, 32), cmdutil.Truncate(termtext.SanitizeLine(e.Subject), 48), authBadge(e))
	return nil
}

func (l *emailList) close() error {
	switch {
	case l.json != nil:
		return l.json.Close()
	case l.table.Len() == 0:
		_, err := fmt.Fprintln(l.w, l.none)
		return err
	}
	return l.table.Write(l.w)
}

// toCell is whom e was sent to in at most width cells: the To header's
// recipients, or the envelope's labelled as such, the label kept whole
// when the addresses are cut.
func toCell(e model.Email, width int) string {
	to, fromEnvelope := e.ShownTo()
	text := termtext.SanitizeLine(strings.Join(to, ", "))
	if !fromEnvelope {
		return cmdutil.Truncate(text, width)
	}
	label := " " + model.EnvelopeLabel
	return cmdutil.Truncate(text, width-len(label)) + label
}

// authBadge is a one-word summary of an email's authentication.
func authBadge(e model.Email) string {
	if e.Problem != "" {
		return "UNREADABLE: " + e.Problem
	}
	return e.AuthResults.Verdict().Word()
}

func newEmailShowCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	var asJSON, asHTML bool
	cmd := &cobra.Command{
		Use:     "show ID",
		Short:   "Show one email with its body and authentication report",
		Example: "  sandview email show 3f1c… --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withInbox(cmd, g, *inbox, func(in *client.Inbox) error {
				e, err := in.Email(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return cmdutil.PrintJSON(cmd.OutOrStdout(), shownEmailOf(e))
				}
				if asHTML {
					return printHTMLBody(cmd.OutOrStdout(), e, g.NoColor())
				}
				printEmail(cmd.OutOrStdout(), e)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&asHTML, "html", false, "print the HTML part laid out as the reader shows it (plain text when not a terminal)")
	return cmd
}

func printEmail(w io.Writer, e model.Email) {
	line := func(k, v string) { fmt.Fprintf(w, "%-14s %s\n", k+":", termtext.SanitizeLine(v)) }
	line("ID", e.ID)
	line("From", e.From)
	to, fromEnvelope := e.ShownTo()
	if fromEnvelope {
		line("To", addressLine(to)+" "+model.EnvelopeLabel)
	} else {
		line("To", addressLine(to))
	}
	if cc := e.Cc(); len(cc) > 0 {
		line("Cc", addressLine(cc))
	}
	if env := e.Envelope; env != nil {
		line("Delivered to", addressLine(model.AddrSpecs(env.To)))
		line("Envelope from", model.ReversePath(env.From))
	}
	line("Subject", e.Subject)
	if e.HasContent {
		line("Date", e.DateText(time.Local))
	}
	line("Received", e.ReceivedAt.Local().Format(time.RFC1123Z))
	if e.Problem != "" {
		line("PROBLEM", e.Problem)
		return
	}
	for _, a := range e.Attachments {
		line("Attached", fmt.Sprintf("%s (%s, %s)", a.Name(), a.ContentType, model.Plural(int(a.Size), "byte", "bytes")))
	}
	line("Auth", authSummary(e.AuthResults))
	if reasons := e.AuthResults.Reasons(); len(reasons) > 0 {
		line("Why", strings.Join(reasons, "; "))
	}
	if user := e.SMTPUser(); user != "" {
		line("Login", user+" (SMTP AUTH)")
	}
	body := e.Text
	if body == "" && e.HTML != "" {
		body = fmt.Sprintf("(HTML only: sandview email show %s --html)", e.ID)
	}
	fmt.Fprintf(w, "\n%s\n", termtext.Sanitize(body))
	for i, l := range e.Links {
		fmt.Fprintf(w, "[%d] %s\n", i+1, termtext.SanitizeLine(l))
	}
}

func newEmailRawCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	return &cobra.Command{
		Use:     "raw ID",
		Short:   "Print the RFC 5322 source of an email",
		Example: "  sandview email raw 3f1c… > mail.eml",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withInbox(cmd, g, *inbox, func(in *client.Inbox) error {
				raw, err := in.Raw(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				if cmdutil.IsTerminal(out) {
					// On a terminal the source is untrusted text; to a file it is kept byte for byte.
					raw = []byte(termtext.Sanitize(string(raw)))
				}
				_, err = out.Write(raw)
				return err
			})
		},
	}
}

func newEmailDeleteCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	return &cobra.Command{
		Use:     "delete ID",
		Short:   "Delete an email",
		Example: "  sandview email delete 3f1c…",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withInbox(cmd, g, *inbox, func(in *client.Inbox) error {
				if err := in.DeleteEmail(cmd.Context(), args[0]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", termtext.SanitizeLine(args[0]))
				return nil
			})
		},
	}
}

// shownAddresses is how many recipients a line of `email show` names
// before "and N more".
const shownAddresses = 10

// addressLine is a list of recipients on one line, the first
// shownAddresses of them, then "and N more".
func addressLine(addrs []string) string {
	if len(addrs) <= shownAddresses {
		return strings.Join(addrs, ", ")
	}
	return strings.Join(addrs[:shownAddresses], ", ") + fmt.Sprintf(" and %d more", len(addrs)-shownAddresses)
}
