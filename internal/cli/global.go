package cli

import (
	"context"
	"errors"
	"fmt"
	"sandview/internal/htmlrender"
	"strings"

	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/client/keystore"
)

// globalOptions are the flags every command shares: which server, which key.
type globalOptions struct {
	url    string
	apiKey string
	home   string
	// local: the root command starts the local server; the others use
	// the running one (see localServer).
	local bool
	// env is the environment the command runs in.
	env environment
	// renderer, when set, is the browser shared by the SSH sessions of a
	// box (its own, not one a user picks); else a command that renders
	// starts its own.
	renderer *htmlrender.Renderer
}

func (g *globalOptions) register(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&g.url, "url", "", "service base URL (env SERVICE_URL, or the config file)")
	f.StringVar(&g.apiKey, "api-key", "", "service API key (env SERVICE_API_KEY, or the config file)")
	f.StringVar(&g.home, "home", "", "state directory (env SANDVIEW_HOME, default $XDG_CONFIG_HOME/sandview)")
	f.BoolVar(&g.local, "local", false, "on sandview itself: start the embedded sandbox server on loopback and watch it; on the other commands: use the server of the running 'sandview --local'")
}

// stateHome is the directory holding the config file, the keystore and the
// local server's state.
func (g *globalOptions) stateHome() (string, error) {
	if g.home != "" {
		return g.home, nil
	}
	home, err := g.env.home()
	if err != nil {
		return "", fmt.Errorf("find the state directory: %w", err)
	}
	return home, nil
}

// target resolves the server URL and API key: with --local the running
// local server's, else flags, then environment, then the config file.
func (g *globalOptions) target(ctx context.Context) (url, apiKey string, err error) {
	if g.local {
		if g.url != "" || g.apiKey != "" {
			return "", "", usageError{"--local reaches the running local server with its own URL and key: leave out --url and --api-key"}
		}
		st, err := g.localServer(ctx)
		return st.URL, st.APIKey, err
	}
	url, apiKey = firstNonEmpty(g.url, g.env.get("SERVICE_URL")), firstNonEmpty(g.apiKey, g.env.get("SERVICE_API_KEY"))
	if url != "" && apiKey != "" {
		return url, apiKey, nil
	}
	home, err := g.stateHome()
	if err != nil {
		return "", "", err
	}
	cfg, err := keystore.LoadConfig(home)
	if err != nil {
		return "", "", err
	}
	return firstNonEmpty(url, cfg.URL), firstNonEmpty(apiKey, cfg.APIKey), nil
}

var errNoServer = errors.New("no server configured: pass --url and --api-key, set SERVICE_URL and SERVICE_API_KEY, run `sandview config --url URL --api-key KEY`, or use `sandview --local`")

// session is a connected client with the inboxes of its keystore loaded.
type session struct {
	client   *client.Client
	keystore *keystore.Store
	// loadErr reports keystore files that could not be loaded; they stay on disk.
	loadErr error
}

// connect builds a client for the configured server and loads the keystore's
// inboxes into it.
func (g *globalOptions) connect(ctx context.Context) (*session, error) {
	url, apiKey, err := g.target(ctx)
	if err != nil {
		return nil, err
	}
	if url == "" || apiKey == "" {
		return nil, errNoServer
	}
	return openSession(ctx, g, url, apiKey)
}

// openSession connects to url with apiKey (and the client options opts)
// and loads the inboxes of its keystore: the local server's with --local
// (localKeystoreDir), else the one kept for url.
func openSession(ctx context.Context, g *globalOptions, url, apiKey string, opts ...client.Option) (*session, error) {
	home, err := g.stateHome()
	if err != nil {
		return nil, err
	}
	dir := keystore.Dir(home, url)
	if g.local {
		dir = localKeystoreDir(home)
	}
	return openSessionIn(ctx, dir, url, apiKey, opts...)
}

// openSessionIn is openSession with the keystore in dir.
func openSessionIn(ctx context.Context, dir, url, apiKey string, opts ...client.Option) (*session, error) {
	c, err := client.New(url, apiKey, opts...)
	if err != nil {
		return nil, err
	}
	ks, err := keystore.Open(dir)
	if err != nil {
		return nil, err
	}
	s := &session{client: c, keystore: ks}
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

// inbox picks the inbox a command acts on: the named one, or the only one.
// A named inbox that is not in the keystore is read by its address when
// it is plain (see plainInbox). When there is none to pick, a refused API
// key is reported first: it is the problem to fix.
func (s *session) inbox(ctx context.Context, address string) (*client.Inbox, error) {
	if address != "" {
		if in, ok := s.client.Inbox(address); ok {
			return in, nil
		}
		return s.plainInbox(ctx, address)
	}
	inboxes := s.client.Inboxes()
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
	return nil, usageError{fmt.Sprintf("several inboxes are known (%s): choose one with --inbox", strings.Join(names, ", "))}
}

// plainInbox opens an inbox that is not in the keystore by its address
// alone, which works for a plain one (a shared catch-all): see
// client.OpenPlainInbox.
func (s *session) plainInbox(ctx context.Context, address string) (*client.Inbox, error) {
	in, err := s.client.OpenPlainInbox(ctx, address)
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

func (s *session) close() { _ = s.client.Close() }

// checkKey asks the server whether it takes the API key: errKeyRefused
// when it does not.
func (s *session) checkKey(ctx context.Context) error {
	ok, err := s.client.CheckKey(ctx)
	if err == nil && !ok {
		return errKeyRefused
	}
	return err
}

// keyProblemOr returns errKeyRefused when the server refuses the API key,
// else err: for commands that would otherwise end without asking the
// server anything.
func (s *session) keyProblemOr(ctx context.Context, err error) error {
	if errors.Is(s.checkKey(ctx), errKeyRefused) {
		return errKeyRefused
	}
	return err
}

// withSession connects for one command and closes the session after fn.
func withSession(cmd *cobra.Command, g *globalOptions, fn func(*session) error) error {
	s, err := g.connect(cmd.Context())
	if err != nil {
		return err
	}
	defer s.close()
	return fn(s)
}
