package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"sandview/client/securefile"
	"sandview/crypto"
	"sandview/server/store"
	"sandview/server/store/bolt"
	"sandview/server/store/memory"
	"sandview/server/store/postgres"
)

// File names inside a data directory.
const (
	signingKeyFile = "server-signing.key"
	storeFile      = "sandview.db"
)

// openStore opens the one store the configuration names: PostgreSQL
// shared by replicas (StoreURL), bbolt in DataDir, or memory. With
// DataDir and no SigningKey it also loads (or creates) the signing key
// kept beside the store, into cfg.SigningKey.
func openStore(ctx context.Context, cfg *Config) (store.Store, error) {
	switch {
	case cfg.StoreURL != "" && cfg.DataDir != "":
		return nil, errors.New("config: a data directory and a store URL exclude each other")
	case cfg.StoreURL != "":
		return postgres.OpenWith(ctx, cfg.StoreURL, postgres.Options{Log: cfg.Logger, LookupTimeout: cfg.StoreLookupTimeout})
	case cfg.DataDir != "":
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("create data directory: %w", err)
		}
		if cfg.SigningKey == nil {
			key, err := loadOrCreateSigningKey(cfg.DataDir)
			if err != nil {
				return nil, err
			}
			cfg.SigningKey = key
		}
		return bolt.Open(filepath.Join(cfg.DataDir, storeFile), cfg.Logger)
	default:
		return memory.New(), nil
	}
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
