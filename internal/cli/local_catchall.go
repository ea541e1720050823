package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"sandview/client"
	"sandview/client/securefile"
	"sandview/internal/cli/cmdutil"
	"sandview/server"
)

// The local server keeps everything in <home>/local: its data, its API
// key, its keystore (localKeystoreDir: the same whatever port it listens
// on, where another server's keystore is kept per address) and, in
// localCatchAllFile, the address of its catch-all, so that a restarted
// `sandview --local` keeps the same catch-all whatever other inboxes the
// keystore holds or has dropped as expired (the server renews its
// catch-all).
const localCatchAllFile = "catch-all"

func localCatchAllPath(home string) string { return filepath.Join(localDir(home), localCatchAllFile) }

// localKeystoreDir is the keystore of the local server of home.
func localKeystoreDir(home string) string { return filepath.Join(localDir(home), "inboxes") }

// localCatchAll is the inbox the local server's catch-all delivers to:
// the one recorded in <home>/local (made again on the server if it is
// gone), else the first loaded inbox, else a new one. It is made the
// server's catch-all and recorded.
func localCatchAll(ctx context.Context, srv *server.Server, s *cmdutil.Session, home string) (*client.Inbox, error) {
	if recorded, err := readLocalCatchAll(home); err != nil {
		return nil, err
	} else if recorded != "" {
		if err := srv.SetCatchAll(ctx, recorded); err == nil {
			if in, err := s.Inbox(ctx, recorded); err == nil {
				if err := s.Save(in); err != nil {
					return nil, err
				}
				return in, nil
			}
		}
	}
	in, err := ensureInbox(ctx, s)
	if err != nil {
		return nil, err
	}
	if err := srv.SetCatchAll(ctx, in.Address()); err != nil {
		return nil, err
	}
	if err := securefile.Write(localCatchAllPath(home), []byte(in.Address()+"\n")); err != nil {
		return nil, fmt.Errorf("record the catch-all: %w", err)
	}
	return in, nil
}

// readLocalCatchAll is the recorded catch-all address, "" when none is.
func readLocalCatchAll(home string) (string, error) {
	data, err := os.ReadFile(localCatchAllPath(home))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the recorded catch-all: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}
