package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"sandview/internal/sshbox"
	"sandview/server"
	"sandview/server/store/postgres"
)

func newServeCommand(g *globalOptions) *cobra.Command {
	var o serverSettings
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded sandbox server (SMTP + HTTP API) headless",
		Long: `Run sandview's own sandbox service: a receive-only SMTP server and the
HTTP API of the email sandbox interface, for a shared test box.

Every flag can also be set through the environment variable ($SVC_*)
named in its help; the command line wins, and an empty variable counts as
unset. Without --api-key or SVC_API_KEY a key is generated once and kept
(mode 0600) in the data directory, or, without --data, in <home>/server
(--home, else $SANDVIEW_HOME, else $XDG_CONFIG_HOME/sandview); the file's
path is printed, never the key. With --store the key, the signing key and
webhook secrets live in the database, so that every replica signs and
checks the same; a --api-key that differs from the stored key is an error.
Stop with Ctrl-C or SIGTERM: mail in flight is finished before exiting.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.applyEnv(cmd.Flags(), g.env); err != nil {
				return err
			}
			if !cmd.Flags().Changed("encryption-context") {
				o.cfg.EncryptionContext = "" // the profile's default
			}
			defer o.applyMemoryPolicy(cmd.Flags(), g.env)()
			return runServe(cmd, g, o)
		},
	}
	o.registerServe(cmd.Flags())
	return cmd
}

func runServe(cmd *cobra.Command, g *globalOptions, o serverSettings) error {
	out := cmd.OutOrStdout()
	level, err := o.slogLevel()
	if err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))

	compat, err := server.ParseCompat(string(o.cfg.Compat))
	if err != nil {
		return fmt.Errorf("--compat: %w", err)
	}
	cfg := o.serverConfig()
	cfg.Compat, cfg.Logger = compat, logger
	welcome := newServerWelcome(o.advertise)
	cfg.Welcome = welcome.page
	if cfg.StoreURL != "" && cfg.DataDir != "" {
		return errors.New("--store and --data exclude each other")
	}
	keyNote := "given with --api-key or SVC_API_KEY (not printed)"
	var keyFile string
	dir := cfg.DataDir
	if dir == "" {
		home, err := g.stateHome()
		if err != nil {
			return err
		}
		dir = filepath.Join(home, "server")
	}
	starttls, err := o.setupTLS(&cfg, dir, tlsNames(cfg.SMTPAddr, o.advertise))
	if err != nil {
		return err
	}
	if cfg.APIKey == "" && cfg.StoreURL == "" {
		key, path, created, err := server.LoadOrCreateAPIKey(dir)
		if err != nil {
			return err
		}
		cfg.APIKey, keyFile = key, path
		if created {
			fmt.Fprintf(out, "Generated an API key and saved it in %s\n", path)
		} else {
			fmt.Fprintf(out, "Using the API key saved in %s\n", path)
		}
	}

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	srv, err := server.Start(cmd.Context(), cfg)
	if err != nil {
		return err
	}
	storage := "in memory (lost on exit)"
	switch {
	case cfg.StoreURL != "":
		storage = postgres.Describe(cfg.StoreURL) + " (shared by every replica)"
		if srv.APIKeyCreated() {
			fmt.Fprintln(out, "Generated an API key and saved it in the store (table secrets, name api-key)")
		} else if o.cfg.APIKey == "" {
			fmt.Fprintln(out, "Using the API key saved in the store")
		}
	case cfg.DataDir != "":
		storage = cfg.DataDir
	}
	httpURL, smtpAddr := "http://"+advertised(srv.HTTPAddr(), o.advertise), advertised(srv.SMTPAddr(), o.advertise)
	fmt.Fprintf(out, "sandview server\n  HTTP API  %s\n  SMTP      %s\n  domains   %s\n  storage   %s\n  policy    %s\n  profile   %s\n",
		httpURL, smtpAddr, strings.Join(srv.Domains(), ", "), storage, cfg.EncryptionPolicy, compatLine(compat))
	starttls.banner(out)
	if cfg.SMTP.AuthFile != "" {
		fmt.Fprintf(out, "  logins    SMTP AUTH required (PLAIN or LOGIN), the users of %s\n", cfg.SMTP.AuthFile)
	}
	if address := srv.CatchAll(); address != "" {
		fmt.Fprintf(out, "  catch-all %s takes mail for any other address\n", address)
	}
	if cfg.Spamd != "" {
		fmt.Fprintf(out, "  spam      scored by spamd at %s\n", cfg.Spamd)
	}
	if cfg.SignAtIngest {
		fmt.Fprintln(out, "  signing   every payload before SMTP answers")
	} else {
		fmt.Fprintln(out, "  signing   parsed and raw payloads just after SMTP answers")
	}
	if cfg.HTTP.Dev {
		fmt.Fprintln(out, "  dev       POST /api/test/emails enabled")
	}
	var box *sshbox.Box
	if o.ssh.Addr != "" {
		// The box's browser (its SANDVIEW_BROWSER or PATH), for its users'
		// renders.
		renderer, closeRenderer := g.env.newRenderer("")
		defer closeRenderer()
		if box, err = startSSH(out, logger, srv, dir, advertisedHost(o.ssh.Addr, o.advertise), o.ssh, renderer); err != nil {
			shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return errors.Join(err, srv.Shutdown(shutdownCtx))
		}
		welcome.sshOn(advertisedHost(o.ssh.Addr, o.advertise), box.Addr())
	}
	if cfg.StoreURL != "" && o.cfg.APIKey == "" {
		keyNote = "in the store (table secrets, name api-key)"
	}
	printConnect(out, connectInfo{URL: httpURL, SMTP: smtpAddr, KeyFile: keyFile, keyNote: keyNote, TLSCert: starttls.certFile()})
	<-ctx.Done()
	stop()
	fmt.Fprintln(out, "Shutting down...")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var sshErr error
	if box != nil {
		sshErr = box.Shutdown(shutdownCtx)
	}
	return errors.Join(sshErr, srv.Shutdown(shutdownCtx))
}

// compatLine describes the wire profile for the banner.
func compatLine(c server.Compat) string {
	if c == server.CompatReference {
		return "reference (answers like the reference deployment, for the official SDKs)"
	}
	return "contract (the interface as written)"
}
