package dnsresolve

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// lines is a slog handler that keeps the messages logged.
type lines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *lines) Enabled(context.Context, slog.Level) bool { return true }
func (l *lines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *lines) WithGroup(string) slog.Handler            { return l }
func (l *lines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.msgs, "\n")
}

// TestClosingSaysNothingAboutTheServers: the servers fell silent (logged);
// then the resolver is closed, and its queries and probes end as timed out
// or canceled: nothing more is logged, in particular not that the servers
// answer again.
func TestClosingSaysNothingAboutTheServers(t *testing.T) {
	logs := &lines{}
	r, err := New(Config{Servers: []string{"127.0.0.1:9"}, HostsFile: t.TempDir() + "/none", Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	r.noteHealth(answer{outcome: timedOut})
	if got := logs.String(); !strings.Contains(got, "do not answer") {
		t.Fatalf("the silence was not logged: %q", got)
	}
	r.Close()
	r.noteHealth(answer{outcome: timedOut}) // a query in flight, cut short by Close
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if r.Probe(canceled) {
		t.Fatal("a canceled probe reported the servers answering")
	}
	if got := logs.String(); strings.Contains(got, "answer again") || strings.Count(got, "do not answer") != 1 {
		t.Fatalf("logged after Close: %q", got)
	}
}
