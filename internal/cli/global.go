package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/client/keystore"
	"sandview/internal/cli/cmdutil"
	"sandview/internal/htmlrender"
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
			return "", "", cmdutil.UsageError{Msg: "--local reaches the running local server with its own URL and key: leave out --url and --api-key"}
		}
		st, err := g.localServer(ctx)
		return st.URL, st.APIKey, err
	}
	url, apiKey = cmdutil.FirstNonEmpty(g.url, g.env.get("SERVICE_URL")), cmdutil.FirstNonEmpty(g.apiKey, g.env.get("SERVICE_API_KEY"))
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
	return cmdutil.FirstNonEmpty(url, cfg.URL), cmdutil.FirstNonEmpty(apiKey, cfg.APIKey), nil
}

// connect builds a client for the configured server and loads the keystore's
// inboxes into it.
func (g *globalOptions) connect(ctx context.Context) (*cmdutil.Session, error) {
	url, apiKey, err := g.target(ctx)
	if err != nil {
		return nil, err
	}
	if url == "" || apiKey == "" {
		return nil, cmdutil.ErrNoServer
	}
	return openSession(ctx, g, url, apiKey)
}

// openSession connects to url with apiKey (and the client options opts)
// and loads the inboxes of its keystore: the local server's with --local
// (localKeystoreDir), else the one kept for url.
func openSession(ctx context.Context, g *globalOptions, url, apiKey string, opts ...client.Option) (*cmdutil.Session, error) {
	home, err := g.stateHome()
	if err != nil {
		return nil, err
	}
	dir := keystore.Dir(home, url)
	if g.local {
		dir = localKeystoreDir(home)
	}
	return cmdutil.OpenSession(ctx, dir, url, apiKey, opts...)
}

// factory is what the command families get from g: its methods, which
// read g when called (after the command line is parsed, and after the
// SSH transport's profile sets g), and what the environment decides.
func (g *globalOptions) factory() *cmdutil.Factory {
	return &cmdutil.Factory{
		Target:            g.target,
		Connect:           g.connect,
		StateHome:         g.stateHome,
		KeyRefusedMessage: func() string { return keyRefusedMessage(g) },
		NoColor:           func() bool { return g.env.noColor() },
		InTmux:            func() bool { return g.env.get("TMUX") != "" },
		Open:              func(ctx context.Context, target string) error { return g.env.opener().Open(ctx, target) },
		Renderer:          g.useRenderer,
		CollectLessOften:  func() func() { return collectLessOften(g.env) },
		Version:           readBuildVersion().String(),
	}
}

// useRenderer is the renderer a command renders with: the one g shares,
// else a new one with the browser given (see environment.newRenderer).
func (g *globalOptions) useRenderer(browser string) (*htmlrender.Renderer, func()) {
	if g.renderer != nil {
		return g.renderer, func() {}
	}
	return g.env.newRenderer(browser)
}
