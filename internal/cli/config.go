package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"sandview/client/keystore"
)

func newConfigCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Save --url and --api-key to the config file, or show what is configured",
		Example: `  sandview config --url https://sandbox.example.com --api-key "$KEY"
  sandview config`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := g.stateHome()
			if err != nil {
				return err
			}
			cfg, err := keystore.LoadConfig(home)
			if err != nil {
				return err
			}
			if g.url == "" && g.apiKey == "" {
				fmt.Fprintf(cmd.OutOrStdout(), "config file: %s\nurl:     %s\napi key: %s\n",
					filepath.Join(home, keystore.ConfigFileName), orUnset(cfg.URL), maskSecret(cfg.APIKey))
				return nil
			}
			cfg.URL = firstNonEmpty(g.url, cfg.URL)
			cfg.APIKey = firstNonEmpty(g.apiKey, cfg.APIKey)
			if err := keystore.SaveConfig(home, cfg); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "saved %s (0600)\n", filepath.Join(home, keystore.ConfigFileName))
			return nil
		},
	}
}

func orUnset(s string) string {
	if s == "" {
		return "(not set)"
	}
	return s
}

// maskSecret shows that a secret is set without showing it.
func maskSecret(s string) string {
	if s == "" {
		return "(not set)"
	}
	return fmt.Sprintf("set (%d characters, hidden)", len(s))
}
