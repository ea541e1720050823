// Package mcp is `sandview mcp`: a Model Context Protocol server (the
// SDK, also named mcp) whose tools create inboxes, wait for, read and
// check mail over the CLI's session. The root command (internal/cli)
// adds it with NewCommand.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/internal/cli/cmdutil"
	"sandview/model/termtext"
)

// `sandview mcp`: a Model Context Protocol server on standard input and
// output, so that a coding agent driving a sign-up flow can create an
// inbox, wait for the mail, take the code or link out of it, read it and
// check it. The tools are in mcp_tools.go; they act through one session
// (the CLI's client, settings and keystore) opened when the server starts.

func NewCommand(g *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the Model Context Protocol on standard input and output, for coding agents",
		Long: `Serve the Model Context Protocol (MCP) on standard input and output, so a
coding agent (Claude Code, Cursor, VS Code, …) that drives a sign-up or
password-reset flow can reach the sandbox itself. Tools:

  create_inbox    create an inbox (kept in the keystore, as inbox create does)
  wait_for_email  wait for matching mail, with the filters of sandview wait
  extract         the link, the one-time code or a pattern's match of a mail
  read_email      one mail: headers, text, the HTML as text, links, codes
  check_email     its authentication verdict, HTML compatibility, spam score,
                  deceptive links and (links: true) each link's status

It uses the server, API key and keystore the other commands use (--url,
--api-key, --local, SERVICE_URL, the config file). Standard output carries
only the protocol; a line on standard error says when a wait starts. No
tool returns the API key or an inbox's secret key.
Register it with an agent: see docs/mcp.md.`,
		Example: `  sandview mcp --local
  sandview mcp --url https://sandbox.example.com   # API key from SERVICE_API_KEY or the config file`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmdutil.WithSession(cmd, g, func(s *cmdutil.Session) error {
				m := &mcpSession{g: g, s: s, log: cmd.ErrOrStderr()}
				t := &mcp.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{cmd.OutOrStdout()}}
				srv, err := m.server()
				if err != nil {
					return err
				}
				// It ends when the client closes standard input.
				if err := srv.Run(cmd.Context(), t); err != nil && !errors.Is(err, io.EOF) {
					return fmt.Errorf("mcp: %w", err)
				}
				return nil
			})
		},
	}
}

// nopWriteCloser is a writer the transport may close without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpSession is the state the tools share: the CLI's session and where
// the wait's line goes.
type mcpSession struct {
	g   *cmdutil.Factory
	s   *cmdutil.Session
	log io.Writer
	// mu serialises the keystore: tools may run at once.
	mu sync.Mutex
}

// server is the MCP server with every tool.
func (m *mcpSession) server() (*mcp.Server, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sandview", Title: "sandview email sandbox", Version: m.g.Version},
		&mcp.ServerOptions{
			Instructions: "Test email flows against a sandbox: create_inbox gives an address to sign up with; " +
				"wait_for_email or extract (which waits too) with new: true sees the mail the app sends; " +
				"read_email and check_email look at one mail by its id.",
			Capabilities: &mcp.ServerCapabilities{},
		})
	return srv, m.addTools(srv)
}

// inbox picks the inbox a tool acts on: the named one, or the only one
// known. An inbox saved to the keystore after the server started (by
// `sandview inbox create` in another terminal) is loaded when named.
func (m *mcpSession) inbox(ctx context.Context, address string) (*client.Inbox, error) {
	address = strings.TrimSpace(address)
	if address == "" {
		if ins := m.s.Client.Inboxes(); len(ins) > 1 {
			names := make([]string, len(ins))
			for i, in := range ins {
				names[i] = in.Address()
			}
			return nil, fmt.Errorf("several inboxes are known (%s): give inbox", termtext.SanitizeLine(strings.Join(names, ", ")))
		}
	} else if _, ok := m.s.Client.Inbox(address); !ok {
		m.reloadKeystore(ctx)
	}
	return m.s.Inbox(ctx, address)
}

// reloadKeystore loads the inboxes saved to the keystore since the
// session opened; one that cannot be loaded is left out, as at start.
func (m *mcpSession) reloadKeystore(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	stored, _ := m.s.Keystore.Load()
	for _, st := range stored {
		if _, ok := m.s.Client.Inbox(st.Data.EmailAddress); ok || st.Expired {
			continue
		}
		_, _ = m.s.Client.ImportInboxData(ctx, st.Data)
	}
}

// keep saves a new inbox to the keystore, as inbox create does.
func (m *mcpSession) keep(in *client.Inbox) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.s.Save(in)
}

// toolError is what a tool answers for err: one line, the refused API
// key explained as the CLI explains it (never the key itself).
func (m *mcpSession) toolError(err error) error {
	if cmdutil.KeyRefused(err) {
		return errors.New(m.g.KeyRefusedMessage())
	}
	return errors.New(cmdutil.OneLine(err.Error()))
}
