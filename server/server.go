package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/dnsresolve"
	"sandview/server/emailauth"
	"sandview/server/store"
	"sandview/server/webhook"
)

// Server is a running sandbox service. Create it with Start.
type Server struct {
	cfg       Config
	log       *slog.Logger
	key       *crypto.SigningKey
	keyB64    string
	aadPrefix string
	store     store.Store
	// shared is store when it is shared with other replicas, else nil.
	shared store.Shared
	// apiKeyCreated tells that this start stored a new API key in the
	// shared store.
	apiKeyCreated bool
	// orphansChecked is when the leader last looked for unsigned emails.
	orphansChecked time.Time
	reg            *registry
	bus            *Bus
	ids            *idGenerator
	webhooks       *webhook.Engine
	signer         *signer
	smtp           *smtpGuard // connection caps, memory, refusals, credentials

	catchAll atomic.Pointer[string] // the catch-all inbox's address (see SetCatchAll)

	checker         *emailauth.Checker
	loopbackChecker *emailauth.Checker   // nil when AuthBudget or Resolver is set
	dns             *dnsresolve.Resolver // nil when Config.Resolver is set

	httpListener, smtpListener net.Listener
	httpServer                 *http.Server
	smtpServer                 *smtp.Server

	// baseCtx ends when the server stops; deliveries and streams use it.
	baseCtx context.Context
	cancel  context.CancelFunc

	workMu   sync.Mutex
	stopping bool
	work     sync.WaitGroup // deliveries in progress
	loops    sync.WaitGroup // serve loops and the sweeper

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
	s := &Server{
		cfg:       cfg,
		log:       cfg.Logger,
		reg:       newRegistry(cfg.MaxEmailsPerInbox, cfg.MaxStoreBytes),
		bus:       newBus(),
		aadPrefix: aadPrefix(cfg.EncryptionContext),
	}
	if s.smtp, err = newSMTPGuard(cfg); err != nil {
		return nil, err
	}
	if err := s.openState(ctx); err != nil {
		return nil, err
	}
	if err := s.SetCatchAll(ctx, cfg.CatchAll); err != nil {
		_ = s.store.Close()
		return nil, err
	}
	if err := s.setupChecks(); err != nil {
		_ = s.store.Close()
		return nil, err
	}
	if err := s.startWebhooks(); err != nil {
		_ = s.store.Close()
		return nil, err
	}
	if err := s.listen(); err != nil {
		_ = s.webhooks.Close(ctx)
		_ = s.store.Close()
		return nil, err
	}
	s.baseCtx, s.cancel = context.WithCancel(context.Background())
	if s.shared != nil {
		// Notices use baseCtx: listen once it exists.
		if err := s.shared.Listen(s.baseCtx, s.onNotice); err != nil {
			s.cancel()
			s.httpListener.Close()
			s.smtpListener.Close()
			_ = s.webhooks.Close(ctx)
			_ = s.store.Close()
			return nil, err
		}
	}
	s.httpServer = &http.Server{
		Handler:           s.probes(s.routes()),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return s.baseCtx },
	}
	s.smtpServer = s.newSMTPServer()
	s.signer.run(s.baseCtx, &s.loops)
	s.watchDNS()
	s.loops.Add(3)
	go func() {
		defer s.loops.Done()
		if err := s.httpServer.Serve(s.httpListener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("HTTP server stopped", "error", err)
		}
	}()
	go func() {
		defer s.loops.Done()
		if err := s.serveSMTP(s.smtpListener); err != nil && !errors.Is(err, net.ErrClosed) {
			s.log.Error("SMTP server stopped", "error", err)
		}
	}()
	go func() {
		defer s.loops.Done()
		s.sweep()
	}()
	go func() {
		select {
		case <-ctx.Done():
			shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = s.Shutdown(shutdownCtx)
		case <-s.baseCtx.Done():
		}
	}()
	s.log.Info("sandbox server started", "http", s.URL(), "smtp", s.SMTPAddr(),
		"domains", strings.Join(cfg.Domains, ","), "encryptionPolicy", cfg.EncryptionPolicy,
		"persistent", cfg.DataDir != "" || cfg.StoreURL != "", "shared", s.shared != nil, "dev", cfg.Dev)
	return s, nil
}

// startWebhooks creates the webhook engine, which keeps its own state in
// DataDir (or in memory), or shares the store's.
func (s *Server) startWebhooks() error {
	wcfg := webhook.DefaultConfig()
	if s.cfg.Webhooks != nil {
		wcfg = *s.cfg.Webhooks
	}
	wcfg.DataDir = s.cfg.DataDir
	if s.shared != nil {
		wcfg.Shared = s.shared
	}
	wcfg.Logger = s.log
	engine, err := webhook.New(wcfg, webhookInboxes{s})
	if err != nil {
		return fmt.Errorf("start webhooks: %w", err)
	}
	s.webhooks = engine
	return nil
}

// webhookInboxes lets the webhook engine find live inboxes.
type webhookInboxes struct{ s *Server }

// Lookup implements webhook.Inboxes.
func (w webhookInboxes) Lookup(address string) (hash, canonical string, ok bool) {
	in, ok := w.s.reg.byAddr(strings.ToLower(strings.TrimSpace(address)), w.s.cfg.Now())
	if !ok {
		return "", "", false
	}
	return in.Hash, in.Address, true
}

// publish sends events to the internal bus (event stream) and to the
// webhook engine; neither blocks. With a shared store the deliveries of a
// new email were queued with it (queuedDeliveries).
func (s *Server) publish(events ...Event) {
	s.bus.Publish(events...)
	for _, ev := range events {
		if s.shared != nil && ev.Type != model.EventEmailDeleted {
			continue
		}
		s.webhooks.Handle(incoming(ev))
	}
}

// staleRetries bounds how often a commit is rendered again because the
// shared webhooks changed meanwhile.
const staleRetries = 3

// commit commits new emails; with a shared store their webhook deliveries
// go in the same commit, rendered again when the webhooks changed since.
func (s *Server) commit(ctx context.Context, batch store.Batch, events []Event) error {
	if s.shared == nil {
		return s.store.Commit(ctx, batch)
	}
	in := make([]webhook.Incoming, len(events))
	for i, ev := range events {
		in[i] = incoming(ev)
	}
	for attempt := 1; ; attempt++ {
		if err := s.webhooks.Prepare(&batch, in); err != nil {
			return fmt.Errorf("webhook deliveries: %w", err)
		}
		err := s.store.Commit(ctx, batch)
		if !errors.Is(err, store.ErrStale) || attempt == staleRetries {
			return err
		}
		if err := s.webhooks.Reload(ctx); err != nil {
			return fmt.Errorf("reload webhooks: %w", err)
		}
	}
}

// incoming is an event as the webhook engine takes it.
func incoming(ev Event) webhook.Incoming {
	in := webhook.Incoming{Type: ev.Type, At: ev.At, InboxEmail: ev.Inbox.Address,
		InboxHash: ev.Inbox.Hash, EmailID: ev.EmailID, Reason: ev.Reason}
	if data, ok := ev.ReceivedData(); ok {
		in.Received = &data
	}
	return in
}

// aadPrefix is the part of the context before its first colon
// ("service" for "service:email:v1").
func aadPrefix(context string) string {
	if i := strings.IndexByte(context, ':'); i > 0 {
		return context[:i]
	}
	return context
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

// APIKey is the key requests must carry.
func (s *Server) APIKey() string { return s.cfg.APIKey }

// APIKeyCreated reports that this start generated the API key and stored
// it in the shared store (Config.StoreURL without Config.APIKey).
func (s *Server) APIKeyCreated() bool { return s.apiKeyCreated }

// ServerSigPk is the base64url ML-DSA-65 public key clients pin.
func (s *Server) ServerSigPk() string { return s.keyB64 }

// WaitForSignatures returns once no stored email waits for a background
// signature (see Config.SignAtIngest), or with ctx's error. Reads never
// need it: they sign what they serve.
func (s *Server) WaitForSignatures(ctx context.Context) error {
	return s.signer.wait(ctx)
}

// Events is the internal event bus (see Event for the event types).
func (s *Server) Events() *Bus { return s.bus }

// beginWork registers a delivery unless the server is stopping.
func (s *Server) beginWork() bool {
	s.workMu.Lock()
	defer s.workMu.Unlock()
	if s.stopping {
		return false
	}
	s.work.Add(1)
	return true
}

func (s *Server) endWork() { s.work.Done() }

// Shutdown stops the server gracefully: it stops accepting connections,
// ends event streams, lets deliveries in progress finish (until ctx ends),
// then closes SMTP connections and the store. Later calls return the first
// call's result.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() { s.stopErr = s.stop(ctx) })
	return s.stopErr
}

// Close stops the server at once; deliveries in progress get a few seconds
// to finish.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return s.Shutdown(ctx)
}

func (s *Server) stop(ctx context.Context) error {
	s.workMu.Lock()
	s.stopping = true
	s.workMu.Unlock()

	var errs []error
	// Closing the SMTP listener stops new sessions; the HTTP server's
	// Shutdown closes its listener and waits for requests, and cancelling
	// baseCtx ends the event streams.
	if err := s.smtpListener.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		errs = append(errs, fmt.Errorf("close SMTP listener: %w", err))
	}
	s.bus.close()
	httpDone := make(chan error, 1)
	go func() { httpDone <- s.httpServer.Shutdown(ctx) }()

	workDone := make(chan struct{})
	go func() { s.work.Wait(); close(workDone) }()
	select {
	case <-workDone:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("waiting for deliveries: %w", ctx.Err()))
	}
	s.cancel()
	if err := s.smtpServer.Close(); err != nil && !errors.Is(err, smtp.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		errs = append(errs, fmt.Errorf("close SMTP server: %w", err))
	}
	if err := <-httpDone; err != nil {
		_ = s.httpServer.Close()
		errs = append(errs, fmt.Errorf("shut down HTTP server: %w", err))
	}
	s.loops.Wait()
	<-workDone
	if err := s.webhooks.Close(ctx); err != nil {
		errs = append(errs, fmt.Errorf("stop webhooks: %w", err))
	}
	if err := s.store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close store: %w", err))
	}
	s.closeDNS()
	s.log.Info("sandbox server stopped")
	return errors.Join(errs...)
}
