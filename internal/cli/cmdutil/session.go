package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/client/keystore"
)

// ErrNoServer is the error of a command that has no server to reach.
var ErrNoServer = errors.New("no server configured: pass --url and --api-key, set SERVICE_URL and SERVICE_API_KEY, run `sandview config --url URL --api-key KEY`, or use `sandview --local`")

// Session is a connected client with the inboxes of its keystore loaded.
type Session struct {
	Client   *client.Client
	Keystore *keystore.Store
	// loadErr reports keystore files that could not be loaded; they stay on disk.
	loadErr error
}

// OpenSession connects to url with apiKey (and the client options opts)
// and loads the inboxes of the keystore in dir.
func OpenSession(ctx context.Context, dir, url, apiKey string, opts ...client.Option) (*Session, error) {
	c, err := client.New(url, apiKey, opts...)
	if err != nil {
		return nil, err
	}
	ks, err := keystore.Open(dir)
	if err != nil {
		return nil, err
	}
	s := &Session{Client: c, Keystore: ks}
	stored, err := ks.Load()
	var problems []error
	if err != nil {
		problems = append(problems, err)
	}
	for _, st := range stored {
		if st.Expired {
			continue
		}
		if _, err := c.ImportInboxData(ctx, st.Data); err != nil {
			problems = append(problems, fmt.Errorf("keystore %s: %w", st.Path, err))
		}
	}
	s.loadErr = errors.Join(problems...)
	return s, nil
}

// Inbox picks the inbox a command acts on: the named one, or the only one.
// A named inbox that is not in the keystore is read by its address when
// it is plain (see PlainInbox). When there is none to pick, a refused API
// key is reported first: it is the problem to fix.
func (s *Session) Inbox(ctx context.Context, address string) (*client.Inbox, error) {
	if address != "" {
		if in, ok := s.Client.Inbox(address); ok {
			return in, nil
		}
		return s.PlainInbox(ctx, address)
	}
	inboxes := s.Client.Inboxes()
	switch len(inboxes) {
	case 1:
		return inboxes[0], nil
	case 0:
		if s.loadErr != nil {
			return nil, s.keyProblemOr(ctx, fmt.Errorf("no usable inbox in the keystore (%v)", s.loadErr))
		}
		return nil, s.keyProblemOr(ctx, errors.New("no inbox in the keystore: create one with `sandview inbox create`"))
	}
	names := make([]string, len(inboxes))
	for i, in := range inboxes {
		names[i] = in.Address()
	}
	return nil, UsageError{Msg: fmt.Sprintf("several inboxes are known (%s): choose one with --inbox", strings.Join(names, ", "))}
}

// PlainInbox opens an inbox that is not in the keystore by its address
// alone, which works for a plain one (a shared catch-all): see
// client.OpenPlainInbox.
func (s *Session) PlainInbox(ctx context.Context, address string) (*client.Inbox, error) {
	in, err := s.Client.OpenPlainInbox(ctx, address)
	var encrypted *client.EncryptedInboxError
	var notFound *client.InboxNotFoundError
	switch {
	case errors.As(err, &encrypted):
		return nil, fmt.Errorf("%s is encrypted and its key is not in this keystore: import an export of it with `sandview inbox import FILE`", address)
	case errors.As(err, &notFound):
		return nil, s.keyProblemOr(ctx, fmt.Errorf("inbox %s is neither in the keystore nor on the server: create it with `sandview inbox create --address %s`", address, address))
	}
	return in, err
}

// Close closes the session's client.
func (s *Session) Close() { _ = s.Client.Close() }

// CheckKey asks the server whether it takes the API key: ErrKeyRefused
// when it does not.
func (s *Session) CheckKey(ctx context.Context) error {
	ok, err := s.Client.CheckKey(ctx)
	if err == nil && !ok {
		return ErrKeyRefused
	}
	return err
}

// keyProblemOr returns ErrKeyRefused when the server refuses the API key,
// else err: for commands that would otherwise end without asking the
// server anything.
func (s *Session) keyProblemOr(ctx context.Context, err error) error {
	if errors.Is(s.CheckKey(ctx), ErrKeyRefused) {
		return ErrKeyRefused
	}
	return err
}

// Save keeps in in the session's keystore, as `sandview inbox create`
// does.
func (s *Session) Save(in *client.Inbox) error {
	data, err := in.Export()
	if err != nil {
		return err
	}
	return s.Keystore.Save(data)
}

// WithSession connects for one command and closes the session after fn.
func WithSession(cmd *cobra.Command, g *Factory, fn func(*Session) error) error {
	s, err := g.Connect(cmd.Context())
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}
