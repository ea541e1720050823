package mail

import (
	"context"
	"errors"
	"fmt"
	"sync"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/desktop"
	"sandview/tui/ui"
)

// bulkWorkers bounds the requests a bulk action makes at once.
const bulkWorkers = 4

// bulkOp is what a bulk action does to each email.
type bulkOp int

const (
	opDelete bulkOp = iota
	opMarkRead
)

// bulkDoneMsg reports a bulk action: the emails it was done to, those it
// failed for, and the first failure.
type bulkDoneMsg struct {
	op           bulkOp
	done, failed []emailRef
	gone         []emailRef // failed: the server no longer holds them
	err          error
}

// forEach calls fn for every ref (with its position), bulkWorkers at a
// time, and sorts the refs into those it worked for and those it failed
// for (in the order given); first is the first failure.
func forEach(refs []emailRef, fn func(i int, ref emailRef) error) (done, failed []emailRef, first error) {
	errs := make([]error, len(refs))
	var wg sync.WaitGroup
	slots := make(chan struct{}, bulkWorkers)
	for i, ref := range refs {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			errs[i] = fn(i, ref)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			done = append(done, refs[i])
			continue
		}
		failed = append(failed, refs[i])
		if first == nil {
			first = err
		}
	}
	return done, failed, first
}

// bulk deletes the emails or marks them read on the service.
func (c commands) bulk(op bulkOp, refs []emailRef) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		missing := make([]bool, len(refs))
		done, failed, err := forEach(refs, func(i int, r emailRef) error {
			var err error
			if op == opDelete {
				err = c.svc.DeleteEmail(ctx, r.address, r.id)
			} else {
				err = c.svc.MarkRead(ctx, r.address, r.id)
			}
			missing[i] = isGone(err)
			return err
		})
		var gone []emailRef
		for i, m := range missing {
			if m {
				gone = append(gone, refs[i])
			}
		}
		return bulkDoneMsg{op: op, done: done, failed: failed, gone: gone, err: err}
	}
}

// file is one file to save: its name (untrusted), the name to use when
// that is empty, and its bytes.
type file struct {
	name, fallback string
	data           []byte
}

// saveFiles saves, in dir, the files each email gives (files fetches them)
// and reports how many were saved, one and many naming them.
func (c commands) saveFiles(refs []emailRef, dir, one, many string, files func(ctx context.Context, i int, r emailRef) ([]file, error)) tea.Cmd {
	return func() tea.Msg {
		if err := c.onTheBox(); err != nil {
			return ui.PromptDoneMsg{Err: err}
		}
		ctx, cancel := c.call()
		defer cancel()
		dir = c.expandHome(dir)
		var mu sync.Mutex
		var paths []string
		_, failed, err := forEach(refs, func(i int, r emailRef) error {
			list, err := files(ctx, i, r)
			if err != nil {
				return err
			}
			for _, f := range list {
				path, err := desktop.SaveUnique(dir, f.name, f.fallback, f.data, 0o600)
				if err != nil {
					return err
				}
				mu.Lock()
				paths = append(paths, path)
				mu.Unlock()
			}
			return nil
		})
		return savedMsg(paths, len(failed), err, one, many, dir)
	}
}

// saveEmails saves the raw source of each email as a .eml file in dir,
// under names (one per ref).
func (c commands) saveEmails(refs []emailRef, names []string, dir string) tea.Cmd {
	return c.saveFiles(refs, dir, "email", "emails", func(ctx context.Context, i int, r emailRef) ([]file, error) {
		raw, err := c.svc.Raw(ctx, r.address, r.id)
		if err != nil {
			return nil, fmt.Errorf("fetch the raw source of %s: %w", r.id, err)
		}
		return []file{{name: names[i], fallback: "message.eml", data: raw}}, nil
	})
}

// saveAttachments saves every attachment of the emails in dir, fetching
// each email in full: the list leaves the attachments' bytes out.
func (c commands) saveAttachments(refs []emailRef, dir string) tea.Cmd {
	return c.saveFiles(refs, dir, "attachment", "attachments", func(ctx context.Context, _ int, r emailRef) ([]file, error) {
		atts, err := c.attachments(ctx, r)
		files := make([]file, len(atts))
		for k, a := range atts {
			files[k] = file{name: a.Filename, fallback: "attachment", data: a.Content}
		}
		return files, err
	})
}

// attachments fetches an email in full and returns its attachments.
func (c commands) attachments(ctx context.Context, r emailRef) ([]model.Attachment, error) {
	e, err := c.svc.Email(ctx, r.address, r.id)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", r.id, err)
	}
	if e.Problem != "" {
		return nil, fmt.Errorf("%s cannot be opened: %s", r.id, e.Problem)
	}
	return e.Attachments, nil
}

// savedMsg reports files saved in dir: how many, and the first failure.
func savedMsg(paths []string, failed int, err error, one, many, dir string) ui.PromptDoneMsg {
	switch {
	case err != nil && len(paths) == 0:
		return ui.PromptDoneMsg{Err: err}
	case err != nil:
		return ui.PromptDoneMsg{Status: fmt.Sprintf("saved %s to %s; %d failed: %s", ui.Plural(len(paths), one, many), dir, failed, ui.ErrorText(err))}
	case len(paths) == 1:
		return ui.PromptDoneMsg{Status: "saved " + paths[0]}
	}
	return ui.PromptDoneMsg{Status: fmt.Sprintf("saved %s to %s", ui.Plural(len(paths), one, many), dir)}
}

// bulkDone applies a bulk action's result.
func (s *dropper) bulkDone(msg bulkDoneMsg) {
	for _, r := range msg.done {
		e, _ := s.state.find(r.address)
		if e == nil {
			continue
		}
		if msg.op == opDelete {
			s.forget(e, r.id)
		}
	}
	s.dropGone(msg.gone)
	if len(msg.gone) > 0 && len(msg.gone) == len(msg.failed) && len(msg.done) == 0 {
		return // what failed was gone already: dropGone said so
	}
	if msg.op == opMarkRead {
		for _, r := range msg.failed {
			if e, _ := s.state.find(r.address); e != nil {
				e.setRead(r.id, false)
			}
		}
	}
	s.emails.refresh()
	verb := map[bulkOp]string{opDelete: "deleted", opMarkRead: "marked read"}[msg.op]
	switch {
	case msg.err == nil && msg.op == opDelete:
		s.ctx.Flash(verb+" "+ui.Plural(len(msg.done), "email", "emails"), ui.LevelSuccess)
	case msg.err != nil && len(msg.done) == 0:
		s.ctx.Flash("not "+verb+": "+failureText(msg.err), ui.LevelError)
	case msg.err != nil:
		s.ctx.Flash(fmt.Sprintf("%s %s; %d failed: %s", verb, ui.Plural(len(msg.done), "email", "emails"), len(msg.failed), failureText(msg.err)), ui.LevelError)
	case len(msg.done) > 1:
		s.ctx.Flash(verb+" "+ui.Plural(len(msg.done), "email", "emails"), ui.LevelSuccess)
	}
}

// failureText is an error as the status line shows it: the server's
// refusal (*client.RefusedError) by its reason alone, which names what and
// why ("delete email on qa@sandbox.test is not allowed for role viewer"),
// else the whole error.
func failureText(err error) string {
	var refused *client.RefusedError
	if errors.As(err, &refused) && refused.Reason != "" {
		return termtext.SanitizeLine(refused.Reason)
	}
	return ui.ErrorText(err)
}
