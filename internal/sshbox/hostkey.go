package sshbox

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"

	gossh "golang.org/x/crypto/ssh"

	"sandview/client/securefile"
)

// loadOrCreateHostKey reads the host's private key at path (PEM), or
// generates an Ed25519 key there once (0600 in a 0700 directory, written
// atomically); it returns the PEM and the key's public half.
func loadOrCreateHostKey(path string) ([]byte, gossh.PublicKey, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, nil, fmt.Errorf("generate the SSH host key: %w", err)
		}
		block, err := gossh.MarshalPrivateKey(priv, "sandview host key")
		if err != nil {
			return nil, nil, fmt.Errorf("encode the SSH host key: %w", err)
		}
		data = pem.EncodeToMemory(block)
		if err := securefile.Write(path, data); err != nil {
			return nil, nil, fmt.Errorf("save the SSH host key: %w", err)
		}
	} else if err != nil {
		return nil, nil, fmt.Errorf("read the SSH host key: %w", err)
	}
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, nil, fmt.Errorf("SSH host key %s: %w", path, err)
	}
	return data, signer.PublicKey(), nil
}
