package cli

import (
	"fmt"
	"net"
	"path/filepath"

	"github.com/spf13/cobra"

	"sandview/client/keystore"
	"sandview/internal/cli/cmdutil"
)

// configView is how `sandview config` prints the config: never the key.
type configView struct {
	File      string `json:"file"`
	URL       string `json:"url"`
	APIKeySet bool   `json:"apiKeySet"`
	SMTP      string `json:"smtp"`
}

func newConfigCommand(g *globalOptions) *cobra.Command {
	var (
		smtpAddr string
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Save --url, --api-key and --smtp to the config file, or show what is configured",
		Example: `  sandview config --url https://sandbox.example.com --api-key "$KEY"
  sandview config --smtp smtp.sandbox.example.com:25
  sandview config --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if smtpAddr != "" {
				if _, _, err := net.SplitHostPort(smtpAddr); err != nil {
					return cmdutil.UsageError{Msg: fmt.Sprintf("--smtp %q: want HOST:PORT (%v)", smtpAddr, err)}
				}
			}
			home, err := g.stateHome()
			if err != nil {
				return err
			}
			cfg, err := keystore.LoadConfig(home)
			if err != nil {
				return err
			}
			path := filepath.Join(home, keystore.ConfigFileName)
			out := cmd.OutOrStdout()
			if g.url != "" || g.apiKey != "" || smtpAddr != "" {
				cfg.URL = cmdutil.FirstNonEmpty(g.url, cfg.URL)
				cfg.APIKey = cmdutil.FirstNonEmpty(g.apiKey, cfg.APIKey)
				cfg.SMTP = cmdutil.FirstNonEmpty(smtpAddr, cfg.SMTP)
				if err := keystore.SaveConfig(home, cfg); err != nil {
					return err
				}
				if !asJSON {
					fmt.Fprintf(out, "saved %s (0600)\n", path)
					return nil
				}
			}
			view := configView{File: path, URL: cfg.URL, APIKeySet: cfg.APIKey != "", SMTP: cfg.SMTP}
			if asJSON {
				return cmdutil.PrintJSON(out, view)
			}
			fmt.Fprintf(out, "config file: %s\nurl:     %s\napi key: %s\nsmtp:    %s\n",
				view.File, orUnset(view.URL), maskSecret(cfg.APIKey), orUnset(view.SMTP))
			return nil
		},
	}
	cmd.Flags().StringVar(&smtpAddr, "smtp", "", "SMTP server HOST:PORT that sandview send delivers to")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the config as JSON (the API key only as set or not)")
	return cmd
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
