package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"sandview/client"
	"sandview/client/securefile"
	"sandview/internal/cli/cmdutil"
)

// A running `sandview --local` records where its server listens, with its
// API key, in <home>/local/server.json (mode 0600), so that CLI commands
// given --local (`sandview email list --local`) reach it from another
// terminal. The file names the process (pid); it is written before the
// server starts (without the addresses) so a second `sandview --local` on
// the same home sees who holds it, and removed when the server stops.

// localStateFile is the state file's name in <home>/local.
const localStateFile = "server.json"

// localCheckTimeout bounds the check that the recorded server answers.
const localCheckTimeout = 5 * time.Second

// localState is the content of the state file.
type localState struct {
	PID      int    `json:"pid"`
	URL      string `json:"url,omitempty"`
	SMTP     string `json:"smtp,omitempty"`
	APIKey   string `json:"apiKey,omitempty"`
	CatchAll string `json:"catchAll,omitempty"`
	// TLSCert is the PEM certificate the SMTP server's STARTTLS presents
	// (see smtpTLS), "" when it offers none.
	TLSCert string `json:"tlsCert,omitempty"`
}

// localDir is the local server's directory under home: its data, API key
// and state file.
func localDir(home string) string { return filepath.Join(home, "local") }

func localStatePath(home string) string { return filepath.Join(localDir(home), localStateFile) }

// readLocalState reads the state file; found is false when there is none.
func readLocalState(home string) (st localState, found bool, err error) {
	path := localStatePath(home)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, false, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &st); err != nil || st.PID <= 0 {
		return st, false, fmt.Errorf("%s is not a sandview state file (remove it): %v", path, err)
	}
	return st, true, nil
}

// writeLocalState writes the state file (0600 in a 0700 directory,
// atomically).
func writeLocalState(home string, st localState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode the local state: %w", err)
	}
	return securefile.Write(localStatePath(home), data)
}

// claimLocalHome records this process as the one serving home, unless a
// live process already does; release removes the record again.
func claimLocalHome(home string) (release func(), err error) {
	if err := holder(home); err != nil {
		return nil, err
	}
	if err := writeLocalState(home, localState{PID: os.Getpid()}); err != nil {
		return nil, err
	}
	return func() {
		if st, found, err := readLocalState(home); err == nil && found && st.PID == os.Getpid() {
			_ = os.Remove(localStatePath(home))
		}
	}, nil
}

// holder returns an exit-2 error naming the other live sandview that holds
// home, or nil when none does.
func holder(home string) error {
	st, found, err := readLocalState(home)
	if err != nil || !found || st.PID == os.Getpid() || !processAlive(st.PID) {
		return err
	}
	return &cmdutil.ExitError{Code: exitUsage, Err: fmt.Errorf(
		"another sandview (pid %d) holds %s: use it from here with --local (`sandview email list --local`), stop it, or give this one another --home (if pid %d is no sandview, remove %s)",
		st.PID, home, st.PID, localStatePath(home))}
}

// processAlive reports whether a process with that pid exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	defer p.Release()
	if runtime.GOOS == "windows" {
		return true // FindProcess opened it
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// noLocalServer is the exit-2 error of a command given --local when no
// local server runs for home.
func noLocalServer(home, why string) error {
	return &cmdutil.ExitError{Code: exitUsage, Err: fmt.Errorf("no local sandview server is running for %s (%s): start one with `sandview --local` in another terminal", home, why)}
}

// localServer finds the running local server of g's home for a command
// given --local, and checks that it answers and takes its own key.
func (g *globalOptions) localServer(ctx context.Context) (localState, error) {
	home, err := g.stateHome()
	if err != nil {
		return localState{}, err
	}
	st, found, err := readLocalState(home)
	switch {
	case err != nil:
		return st, err
	case !found:
		return st, noLocalServer(home, "no "+localStatePath(home))
	case !processAlive(st.PID):
		return st, noLocalServer(home, fmt.Sprintf("the one recorded, pid %d, is gone", st.PID))
	case st.URL == "":
		return st, &cmdutil.ExitError{Code: exitUsage, Err: fmt.Errorf("the local sandview server (pid %d) is still starting: try again in a moment", st.PID)}
	}
	c, err := client.New(st.URL, st.APIKey)
	if err != nil {
		return st, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, localCheckTimeout)
	defer cancel()
	ok, err := c.CheckKey(ctx)
	if err != nil {
		return st, &cmdutil.ExitError{Code: exitUsage, Err: fmt.Errorf("the local sandview server (pid %d) does not answer at %s: %w", st.PID, st.URL, err)}
	}
	if !ok {
		return st, cmdutil.ErrKeyRefused
	}
	return st, nil
}
