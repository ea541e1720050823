package cli

import (
	"context"
	"crypto/tls"
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
	"github.com/spf13/pflag"

	"sandview/crypto"
	"sandview/internal/sshbox"
	"sandview/server"
	"sandview/server/store/postgres"
	"sandview/server/webhook"
)

// serveEnv maps each `serve` flag to its environment variable; a flag given
// on the command line wins over the variable.
var serveEnv = map[string]string{
	"http":                 "SVC_HTTP",
	"smtp":                 "SVC_SMTP",
	"api-key":              "SVC_API_KEY",
	"domain":               "SVC_DOMAINS",
	"encryption-policy":    "SVC_ENCRYPTION_POLICY",
	"encryption-context":   "SVC_ENCRYPTION_CONTEXT",
	"data":                 "SVC_DATA",
	"store":                "SVC_STORE",
	"dev":                  "SVC_SDK_DEVELOPMENT",
	"default-ttl":          "SVC_DEFAULT_TTL",
	"max-ttl":              "SVC_MAX_TTL",
	"max-emails-per-inbox": "SVC_MAX_EMAILS_PER_INBOX",
	"max-store-bytes":      "SVC_MAX_STORE_BYTES",
	"tls-cert":             "SVC_TLS_CERT",
	"tls-key":              "SVC_TLS_KEY",
	"log-level":            "SVC_LOG_LEVEL",
	"sign-at-ingest":       "SVC_SIGN_AT_INGEST",
	"dns":                  "SVC_DNS",
	"private-webhooks":     "SVC_WEBHOOK_ALLOW_PRIVATE",
	"compat":               "SVC_COMPAT",
	"catch-all":            "SVC_CATCH_ALL",
	"spamd":                "SVC_SPAMD",
}

// serveOptions are the flags of `sandview serve`.
type serveOptions struct {
	httpAddr, smtpAddr string
	apiKey             string
	domains            []string
	policy, context    string
	dataDir            string
	store              string
	dev                bool
	defaultTTL, maxTTL time.Duration
	limits             smtpLimitOptions
	maxEmailsPerInbox  int
	maxStoreBytes      int64
	tlsCert, tlsKey    string
	logLevel           string
	signAtIngest       bool
	dns                []string
	privateWebhooks    bool
	compat             string
	catchAll           string
	spamd              string
	ssh                sshOptions
}

func newServeCommand(g *globalOptions) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded sandbox server (SMTP + HTTP API) headless",
		Long: `Run sandview's own sandbox service: a receive-only SMTP server and the
HTTP API of the email sandbox interface, for a shared test box.

Every flag can also be set through the environment variable named in its
help; the command line wins. Without --api-key or SVC_API_KEY a key is
generated once and kept (mode 0600) in the data directory, or, without
--data, in <home>/server (--home, else $SANDVIEW_HOME, else
$XDG_CONFIG_HOME/sandview);
the file's path is printed, never the key. With --store the key, the
signing key and webhook secrets live in the database, so that every replica
signs and checks the same; a --api-key that differs from the stored key is
an error. Stop with Ctrl-C or SIGTERM: mail
in flight is finished before exiting.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyServeEnv(cmd.Flags()); err != nil {
				return err
			}
			if !cmd.Flags().Changed("encryption-context") {
				o.context = "" // the profile's default
			}
			return runServe(cmd, g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.httpAddr, "http", server.DefaultHTTPAddr, "HTTP API listen address (SVC_HTTP)")
	f.StringVar(&o.smtpAddr, "smtp", server.DefaultSMTPAddr, "SMTP listen address (SVC_SMTP)")
	f.StringVar(&o.apiKey, "api-key", "", "API key clients must send (SVC_API_KEY; default: generated and saved)")
	f.StringSliceVar(&o.domains, "domain", server.DefaultDomains(), "allowed recipient domains, comma-separated or repeated (SVC_DOMAINS)")
	f.StringVar(&o.policy, "encryption-policy", "enabled", "always, enabled, disabled or never (SVC_ENCRYPTION_POLICY)")
	f.StringVar(&o.context, "encryption-context", crypto.DefaultContext, "encryption context string (SVC_ENCRYPTION_CONTEXT; default with --compat reference: "+server.ReferenceEncryptionContext+")")
	f.StringVar(&o.dataDir, "data", "", "persist inboxes, emails and keys in this directory (SVC_DATA; default: in memory)")
	f.StringVar(&o.store, "store", "", "keep everything in PostgreSQL, shared by any number of replicas: postgres://USER@HOST:PORT/DB (SVC_STORE; excludes --data)")
	f.BoolVar(&o.dev, "dev", false, "enable the test-email endpoint (SVC_SDK_DEVELOPMENT=true)")
	f.DurationVar(&o.defaultTTL, "default-ttl", server.DefaultTTL, "inbox TTL when none is requested (SVC_DEFAULT_TTL)")
	f.DurationVar(&o.maxTTL, "max-ttl", server.DefaultMaxTTL, "longest inbox TTL (SVC_MAX_TTL)")
	o.limits.register(f, "")
	f.IntVar(&o.maxEmailsPerInbox, "max-emails-per-inbox", server.DefaultMaxEmailsPerInbox, "oldest emails are evicted beyond this (SVC_MAX_EMAILS_PER_INBOX)")
	f.Int64Var(&o.maxStoreBytes, "max-store-bytes", server.DefaultMaxStoreBytes, "oldest emails are evicted beyond this total (SVC_MAX_STORE_BYTES)")
	f.StringVar(&o.tlsCert, "tls-cert", "", "PEM certificate enabling STARTTLS (SVC_TLS_CERT)")
	f.StringVar(&o.tlsKey, "tls-key", "", "PEM private key of --tls-cert (SVC_TLS_KEY)")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error (SVC_LOG_LEVEL)")
	f.BoolVar(&o.signAtIngest, "sign-at-ingest", false, "sign every encrypted payload before answering SMTP; by default parsed and raw are signed just after (SVC_SIGN_AT_INGEST)")
	f.StringSliceVar(&o.dns, "dns", nil, "DNS server(s) HOST:PORT the authentication checks ask, through a cache (SVC_DNS; default: the system's resolvers)")
	f.BoolVar(&o.privateWebhooks, "private-webhooks", false, "let webhooks target loopback, private, link-local and cloud metadata addresses (SVC_WEBHOOK_ALLOW_PRIVATE; default: such URLs are refused and such connections blocked)")
	f.StringVar(&o.compat, "compat", string(server.CompatContract), "wire profile: contract or reference (SVC_COMPAT)")
	f.StringVar(&o.spamd, "spamd", "", "score each mail with SpamAssassin's spamd at HOST:PORT; a mail it has not scored within 3s is stored without a score (SVC_SPAMD)")
	o.ssh.register(f)
	f.StringVar(&o.catchAll, "catch-all", "", "store mail for any address no inbox has, in any domain, in this inbox (created if missing; SVC_CATCH_ALL)")
	return cmd
}

// applyServeEnv sets every flag not given on the command line from its
// environment variable.
func applyServeEnv(flags *pflag.FlagSet) error {
	for _, env := range []map[string]string{serveEnv, sshEnv} {
		if err := applyEnv(flags, env); err != nil {
			return err
		}
	}
	return applyEnv(flags, smtpLimitEnv)
}

func runServe(cmd *cobra.Command, g *globalOptions, o serveOptions) error {
	out := cmd.OutOrStdout()
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))

	compat, err := server.ParseCompat(o.compat)
	if err != nil {
		return fmt.Errorf("--compat: %w", err)
	}
	webhooks, err := webhook.ConfigFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	webhooks.AllowPrivate = o.privateWebhooks // the flag, else SVC_WEBHOOK_ALLOW_PRIVATE
	cfg := server.Config{
		Compat: compat, CatchAll: o.catchAll, Spamd: o.spamd,
		HTTPAddr: o.httpAddr, SMTPAddr: o.smtpAddr, APIKey: o.apiKey,
		Domains: o.domains, EncryptionPolicy: o.policy, EncryptionContext: o.context,
		DataDir: o.dataDir, StoreURL: o.store, Dev: o.dev, DefaultTTL: o.defaultTTL, MaxTTL: o.maxTTL,
		MaxEmailsPerInbox: o.maxEmailsPerInbox, MaxStoreBytes: o.maxStoreBytes, SignAtIngest: o.signAtIngest, DNSServers: o.dns, Logger: logger, Webhooks: &webhooks,
	}
	o.limits.apply(&cfg)
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if o.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return fmt.Errorf("load TLS certificate: %w", err)
		}
		cfg.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if o.store != "" && o.dataDir != "" {
		return errors.New("--store and --data exclude each other")
	}
	keyNote := "given with --api-key or SVC_API_KEY (not printed)"
	var keyFile string
	dir := o.dataDir
	if dir == "" {
		home, err := g.stateHome()
		if err != nil {
			return err
		}
		dir = filepath.Join(home, "server")
	}
	if cfg.APIKey == "" && o.store == "" {
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

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := server.Start(cmd.Context(), cfg)
	if err != nil {
		return err
	}
	storage := "in memory (lost on exit)"
	switch {
	case o.store != "":
		storage = postgres.Describe(o.store) + " (shared by every replica)"
		if srv.APIKeyCreated() {
			fmt.Fprintln(out, "Generated an API key and saved it in the store (table secrets, name api-key)")
		} else if o.apiKey == "" {
			fmt.Fprintln(out, "Using the API key saved in the store")
		}
	case o.dataDir != "":
		storage = o.dataDir
	}
	fmt.Fprintf(out, "sandview server\n  HTTP API  %s\n  SMTP      %s\n  domains   %s\n  storage   %s\n  policy    %s\n  profile   %s\n",
		srv.URL(), srv.SMTPAddr(), strings.Join(o.domains, ", "), storage, o.policy, compatLine(compat))
	if address := srv.CatchAll(); address != "" {
		fmt.Fprintf(out, "  catch-all %s takes mail for any other address\n", address)
	}
	if o.spamd != "" {
		fmt.Fprintf(out, "  spam      scored by spamd at %s\n", o.spamd)
	}
	if o.signAtIngest {
		fmt.Fprintln(out, "  signing   every payload before SMTP answers")
	} else {
		fmt.Fprintln(out, "  signing   parsed and raw payloads just after SMTP answers")
	}
	if o.dev {
		fmt.Fprintln(out, "  dev       POST /api/test/emails enabled")
	}
	var box *sshbox.Box
	if o.ssh.addr != "" {
		if box, err = startSSH(out, logger, srv, srv.APIKey(), dir, o.ssh); err != nil {
			shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return errors.Join(err, srv.Shutdown(shutdownCtx))
		}
	}
	if o.store != "" && o.apiKey == "" {
		keyNote = "in the store (table secrets, name api-key)"
	}
	printConnect(out, connectInfo{URL: srv.URL(), SMTP: srv.SMTPAddr(), KeyFile: keyFile, keyNote: keyNote})
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
