package email

import (
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
	"sandview/model/search"
)

// `sandview email list --search QUERY`: the query language of the TUI's
// search (model/search), over the emails listed with their content; with
// in:all, over every inbox of the keystore.

// addSearchFlag registers --search on the list command.
func addSearchFlag(cmd *cobra.Command, query *string) {
	cmd.Flags().StringVar(query, "search", "", `only the emails matching a query: free text, from: to: cc: rcpt: subject:, is:unread, has:attachment, auth:pass|fail|unverified|skipped, spf:/dkim:/dmarc:/reversedns:, before:/after:, "phrases", -term, in:all`)
}

// runSearch lists the emails that match query: of the inbox picked by
// address, or of every inbox with in:all. Notes on the query go to
// notes.
func runSearch(ctx context.Context, s *cmdutil.Session, address, query string, list *emailList, notes io.Writer) error {
	q, err := search.Parse(query, time.Now())
	if err != nil {
		return cmdutil.UsageError{Msg: fmt.Sprintf("--search: %v", err)}
	}
	list.none = search.NoMatches
	for _, note := range q.Notes() {
		fmt.Fprintln(notes, "sandview: --search: "+note)
	}
	var inboxes []*client.Inbox
	if q.AllInboxes() {
		if address != "" {
			return cmdutil.UsageError{Msg: "--search with in:all searches every inbox: leave out --inbox"}
		}
		inboxes = s.Client.Inboxes()
	} else {
		in, err := s.Inbox(ctx, address)
		if err != nil {
			return err
		}
		inboxes = []*client.Inbox{in}
	}
	var failures []error
	for _, in := range inboxes {
		err := in.EachEmail(ctx, client.ListOptions{IncludeContent: true}, func(e model.Email, openErr error) error {
			if openErr != nil {
				failures = append(failures, openErr)
			}
			if !q.Match(e) {
				return nil
			}
			return list.add(e)
		})
		if err != nil {
			if len(inboxes) == 1 {
				return err
			}
			failures = append(failures, fmt.Errorf("%s: %w", in.Address(), err))
		}
	}
	if err := list.close(); err != nil {
		return err
	}
	return errors.Join(failures...)
}

// searchExample is the list command's example of --search.
var searchExample = strings.Join([]string{
	`  sandview email list --search 'from:billing is:unread "password reset"'`,
	`  sandview email list --search 'in:all auth:fail after:2h' --json`,
}, "\n")
