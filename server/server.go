package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"sandview/server/access"
	"sandview/server/core"
	"sandview/server/httpapi"
	"sandview/server/smtpd"
	"sandview/server/store"
)

// Server is a running sandbox service: the core and its two transports,
// HTTP and SMTP, on their listeners. Create it with Start.
type Server struct {
	cfg  Config
	log  *slog.Logger
	core *core.Core
	// store is what the core (and the webhook engine) keep; Start opens
	// it, stop closes it after the core.
	store store.Store
	smtp  *smtpd.Server
	// principals are the keys that act as principals (PrincipalKey).
	principals *access.Keyring

	httpListener, smtpListener net.Listener
	httpServer                 *http.Server

	loops sync.WaitGroup // the serve loops

	stopOnce sync.Once
	stopErr  error
}

// Start opens the store, listens on both addresses and serves until ctx is
// cancelled or Shutdown or Close is called. ctx also bounds the startup.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	s := &Server{cfg: cfg, log: cfg.Logger, principals: newKeyring()}
	if s.store, err = openStore(ctx, &cfg); err != nil {
		return nil, err
	}
	opts := cfg.Options
	opts.Store = s.store
	if s.core, err = core.Open(ctx, opts); err != nil {
		_ = s.store.Close()
		return nil, err
	}
	api, err := s.start(ctx)
	if err != nil {
		_ = s.core.Close(ctx)
		_ = s.store.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	api.Register(mux)
	s.httpServer = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return s.core.Context() },
	}
	s.loops.Add(2)
	go func() {
		defer s.loops.Done()
		if err := s.httpServer.Serve(s.httpListener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("HTTP server stopped", "error", err)
		}
	}()
	go func() {
		defer s.loops.Done()
		if err := s.smtp.Serve(s.smtpListener); err != nil && !errors.Is(err, net.ErrClosed) {
			s.log.Error("SMTP server stopped", "error", err)
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = s.Shutdown(shutdownCtx)
		case <-s.core.Context().Done():
		}
	}()
	s.log.Info("sandbox server started", "http", s.URL(), "smtp", s.SMTPAddr(),
		"domains", strings.Join(cfg.Domains, ","), "encryptionPolicy", cfg.EncryptionPolicy,
		"persistent", cfg.DataDir != "" || cfg.StoreURL != "", "shared", cfg.StoreURL != "", "dev", cfg.HTTP.Dev)
	return s, nil
}

// start sets the catch-all, starts the SMTP transport, the webhook engine
// and the core, and listens; it returns the HTTP API. On an error the
// caller closes the core.
func (s *Server) start(ctx context.Context) (*httpapi.API, error) {
	if err := s.core.SetCatchAll(ctx, s.cfg.CatchAll); err != nil {
		return nil, err
	}
	var err error
	if s.smtp, err = smtpd.New(s.core, s.cfg.SMTP); err != nil {
		return nil, err
	}
	webhooks, err := startWebhooks(s.cfg, s.core, s.store)
	if err != nil {
		return nil, err
	}
	api, err := httpapi.New(s.core, webhooks, s.cfg.HTTP, s.principals, s.welcome)
	if err != nil {
		_ = webhooks.Close(ctx)
		return nil, err
	}
	if err := s.listen(); err != nil {
		_ = webhooks.Close(ctx)
		return nil, err
	}
	if err := s.core.Start(webhooks); err != nil {
		s.httpListener.Close()
		s.smtpListener.Close()
		return nil, err
	}
	return api, nil
}

func (s *Server) listen() error {
	hl, err := net.Listen("tcp", s.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen for HTTP on %s: %w", s.cfg.HTTPAddr, err)
	}
	sl, err := net.Listen("tcp", s.cfg.SMTPAddr)
	if err != nil {
		hl.Close()
		return fmt.Errorf("listen for SMTP on %s: %w", s.cfg.SMTPAddr, err)
	}
	s.httpListener, s.smtpListener = hl, sl
	return nil
}

// URL is the HTTP API's base address, e.g. "http://127.0.0.1:8025".
func (s *Server) URL() string { return "http://" + s.HTTPAddr() }

// HTTPAddr is the address the HTTP API listens on.
func (s *Server) HTTPAddr() string { return s.httpListener.Addr().String() }

// SMTPAddr is the address the SMTP server listens on.
func (s *Server) SMTPAddr() string { return s.smtpListener.Addr().String() }

// Domains are the recipient domains it accepts, normalised (lowercased,
// trimmed, without duplicates).
func (s *Server) Domains() []string { return slices.Clone(s.cfg.Domains) }

// APIKey is the key requests must carry.
func (s *Server) APIKey() string { return s.core.APIKey() }

// APIKeyCreated reports that this start generated the API key and stored
// it in the shared store (Config.StoreURL without Config.APIKey).
func (s *Server) APIKeyCreated() bool { return s.core.APIKeyCreated() }

// ServerSigPk is the base64url ML-DSA-65 public key clients pin.
func (s *Server) ServerSigPk() string { return s.core.ServerSigPk() }

// WaitForSignatures returns once no stored email waits for a background
// signature (see Config.SignAtIngest), or with ctx's error. Reads never
// need it: they sign what they serve.
func (s *Server) WaitForSignatures(ctx context.Context) error {
	return s.core.WaitForSignatures(ctx)
}

// Events is the internal event bus (see Event for the event types).
func (s *Server) Events() *Bus { return s.core.Events() }

// SetCatchAll makes the inbox at address the catch-all: SMTP mail for any
// recipient, in any domain, that matches no live inbox is stored there
// (see core.Core.SetCatchAll); "" turns the catch-all off.
func (s *Server) SetCatchAll(ctx context.Context, address string) error {
	return s.core.SetCatchAll(ctx, address)
}

// CatchAll is the catch-all inbox's address, or "" when there is none.
func (s *Server) CatchAll() string { return s.core.CatchAll() }

// Refusals returns the latest SMTP refusals (at most 200), oldest first.
func (s *Server) Refusals() []Refusal { return s.smtp.Refusals() }

// WatchRefusals calls fn with every SMTP refusal from now on, until stop
// is called. fn runs on the SMTP connection's goroutine: it must not
// block (hand the refusal to a buffered channel, dropping it when full).
func (s *Server) WatchRefusals(fn func(Refusal)) (stop func()) { return s.smtp.WatchRefusals(fn) }

// Shutdown stops the server gracefully: it stops accepting connections,
// ends event streams, lets arrivals in progress finish (until ctx ends),
// then closes SMTP connections and the store. Later calls return the first
// call's result.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() { s.stopErr = s.stop(ctx) })
	return s.stopErr
}

// Close stops the server at once; arrivals in progress get a few seconds
// to finish.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return s.Shutdown(ctx)
}

func (s *Server) stop(ctx context.Context) error {
	var errs []error
	// The core takes no more mail and ends the event streams; closing the
	// SMTP listener stops new sessions; the HTTP server's Shutdown closes
	// its listener and waits for requests.
	s.core.StopIntake()
	if err := s.smtpListener.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		errs = append(errs, fmt.Errorf("close SMTP listener: %w", err))
	}
	httpDone := make(chan error, 1)
	go func() { httpDone <- s.httpServer.Shutdown(ctx) }()

	if err := s.core.WaitWork(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := s.smtp.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close SMTP server: %w", err))
	}
	if err := <-httpDone; err != nil {
		_ = s.httpServer.Close()
		errs = append(errs, fmt.Errorf("shut down HTTP server: %w", err))
	}
	s.loops.Wait()
	if err := s.core.Close(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := s.store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close store: %w", err))
	}
	s.log.Info("sandbox server stopped")
	return errors.Join(errs...)
}

// welcome is what the page at / tells a browser (see Config.Welcome).
func (s *Server) welcome() httpapi.Welcome {
	if s.cfg.Welcome != nil {
		return s.cfg.Welcome(s.HTTPAddr(), s.SMTPAddr())
	}
	return httpapi.Welcome{URL: s.URL(), SMTP: s.SMTPAddr()}
}
