package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"sandview/client/securefile"
	"sandview/server/core"
)

// apiKeyFile is the API key's file name in a state directory.
const apiKeyFile = "api-key"

// LoadOrCreateAPIKey returns the API key kept in dir (file "api-key"),
// generating and saving a random one on first use. It also returns the
// file's path and whether the key was just created. The key itself must
// never be printed or logged.
func LoadOrCreateAPIKey(dir string) (key, path string, created bool, err error) {
	path = filepath.Join(dir, apiKeyFile)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		key = strings.TrimSpace(string(data))
		if key == "" {
			return "", path, false, fmt.Errorf("API key file %s is empty", path)
		}
		return key, path, false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", path, false, fmt.Errorf("read API key: %w", err)
	}
	key = core.NewAPIKey()
	if err := securefile.Write(path, []byte(key+"\n")); err != nil {
		return "", path, false, fmt.Errorf("save API key: %w", err)
	}
	return key, path, true, nil
}
