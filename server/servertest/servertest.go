package servertest

import (
	"context"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/core"
	"sandview/server/emailauth"
	"sandview/server/httpapi"
)

// APIKey is the API key of every server Start returns.
const APIKey = "test-key"

// Start starts a server for t, applying opts to its configuration, and
// stops it when t ends. It fails the test if the server cannot start.
func Start(t testing.TB, opts ...func(*server.Config)) *server.Server {
	t.Helper()
	cfg := server.Config{
		HTTPAddr: "127.0.0.1:0",
		SMTPAddr: "127.0.0.1:0",
		Options: core.Options{
			APIKey:        APIKey,
			Resolver:      &emailauth.StaticResolver{},
			SweepInterval: 100 * time.Millisecond,
		},
		HTTP: httpapi.Settings{Dev: true, HeartbeatInterval: 5 * time.Second},
	}
	for _, opt := range opts {
		opt(&cfg)
	}
	srv, err := server.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("servertest: start server: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("servertest: stop server: %v", err)
		}
	})
	return srv
}
