package server

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"sandview/crypto"
	"sandview/internal/securefile"
)

// File names inside a data or state directory.
const (
	signingKeyFile = "server-signing.key"
	apiKeyFile     = "api-key"
	storeFile      = "sandview.db"
)

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
	key = newAPIKey()
	if err := securefile.Write(path, []byte(key+"\n")); err != nil {
		return "", path, false, fmt.Errorf("save API key: %w", err)
	}
	return key, path, true, nil
}

// newAPIKey returns a random API key.
func newAPIKey() string {
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	return "svk_" + crypto.EncodeBase64URL(raw[:])
}

// loadOrCreateSigningKey returns the signing key kept in dir, generating
// and saving one on first use.
func loadOrCreateSigningKey(dir string) (*crypto.SigningKey, error) {
	path := filepath.Join(dir, signingKeyFile)
	data, err := os.ReadFile(path)
	if err == nil {
		key, err := crypto.SigningKeyFromBytes(data)
		if err != nil {
			return nil, fmt.Errorf("load signing key %s: %w", path, err)
		}
		return key, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read signing key: %w", err)
	}
	key, err := crypto.GenerateSigningKey()
	if err != nil {
		return nil, err
	}
	seed, err := key.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode signing key: %w", err)
	}
	if err := securefile.Write(path, seed); err != nil {
		return nil, fmt.Errorf("save signing key: %w", err)
	}
	return key, nil
}
