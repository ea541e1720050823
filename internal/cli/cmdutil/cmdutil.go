// Package cmdutil is what the command families of sandview's command line
// (internal/cli/email, inbox, webhook, mcp) share: the Factory the root
// command hands them, the connected Session, the usage and exit errors,
// and the output helpers (JSON, tables). It reads no environment: the
// root command (internal/cli) does, and passes the values in.
package cmdutil

import (
	"context"
	"errors"

	"sandview/client"
	"sandview/internal/htmlrender"
)

// Factory is what a command family gets from the root command: the
// global flags (--url, --api-key, --home, --local) resolved against the
// environment and the config file, and what the environment decides. The
// root fills it with functions that read its options when called, after
// the command line is parsed.
type Factory struct {
	// Target is the server URL and API key to use: the running local
	// server's with --local, else the flags', the environment's, the
	// config file's.
	Target func(ctx context.Context) (url, apiKey string, err error)
	// Connect connects to Target's server with the inboxes of its
	// keystore loaded.
	Connect func(ctx context.Context) (*Session, error)
	// StateHome is the directory holding the config file, the keystore
	// and the local server's state.
	StateHome func() (string, error)
	// KeyRefusedMessage says that the server refused the API key and how
	// to fix it.
	KeyRefusedMessage func() string
	// NoColor reports NO_COLOR.
	NoColor func() bool
	// InTmux reports a terminal inside tmux.
	InTmux func() bool
	// Open opens a file or URL ($BROWSER, else the desktop's opener).
	Open func(ctx context.Context, target string) error
	// Renderer is the HTML renderer to use, with the function that ends
	// it: the one the process shares, else a new one with the browser
	// given (--browser; "" for the environment's or the PATH's).
	Renderer func(browser string) (r *htmlrender.Renderer, done func())
	// CollectLessOften makes the garbage collector run less often for a
	// long list, until restore is called (see internal/cli).
	CollectLessOften func() (restore func())
	// Version is the build's version, as `sandview version` prints it.
	Version string
}

// Exit codes of the CLI (listed in the root command's help).
const (
	ExitOK      = 0
	ExitFailure = 1
	// ExitUsage: a bad invocation, or --local without a running local
	// server (or with its home held by another sandview).
	ExitUsage   = 2
	ExitTimeout = 3
	// ExitKeyRefused: the server refused the API key.
	ExitKeyRefused = 4
)

// ErrKeyRefused is a server's refusal of the API key (a 401, or
// check-key answering false).
var ErrKeyRefused = errors.New("the server refused the API key")

// KeyRefused reports an error that is the server refusing the API key.
func KeyRefused(err error) bool {
	var unauthorized *client.UnauthorizedError
	return errors.As(err, &unauthorized) || errors.Is(err, ErrKeyRefused)
}

// ExitError carries a specific exit code.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// UsageError marks a bad invocation (exit 2).
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// IsUsageError reports an error that is a bad invocation.
func IsUsageError(err error) bool {
	var u UsageError
	return errors.As(err, &u)
}
