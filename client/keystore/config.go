package keystore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"sandview/client/securefile"
)

// ConfigFileName is the name of the config file inside sandview's home.
const ConfigFileName = "config.json"

// Config is the small persisted configuration: which server to talk to,
// with which API key, and where `sandview send` delivers. The file is 0600
// in a 0700 directory.
type Config struct {
	URL    string `json:"url"`
	APIKey string `json:"apiKey"`
	SMTP   string `json:"smtp,omitempty"`
}

// LoadConfig reads home/config.json. A missing file is an empty Config
// and no error. A file readable by others is tightened to 0600.
func LoadConfig(home string) (Config, error) {
	path := filepath.Join(home, ConfigFileName)
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return Config{}, fmt.Errorf("make config %s private: %w", path, err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	var c Config
	if err := json.Unmarshal(data, &c); err != nil {
		return Config{}, fmt.Errorf("config %s is not valid JSON (fix or delete it): %w", path, err)
	}
	return c, nil
}

// SaveConfig writes home/config.json (0600, atomic), creating home (0700).
func SaveConfig(home string, c Config) error {
	if err := securefile.PrivateDir(home); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	if err := securefile.Write(filepath.Join(home, ConfigFileName), append(data, '\n')); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	return nil
}
