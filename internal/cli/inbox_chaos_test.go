package cli

import (
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/server"
)

// TestCLIInboxChaosRefusesBadValues: each bad value is refused in one
// line naming the range allowed, with the usage exit, before the server
// is asked.
func TestCLIInboxChaosRefusesBadValues(t *testing.T) {
	h := newCLI(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--latency", "61s"}, "from 0 to 60s"},
		{[]string{"--latency", "3s-1s"}, "must not be above the second"},
		{[]string{"--drop", "1.5"}, "from 0 to 1"},
		{[]string{"--error", "2"}, "from 0 to 1"},
		{[]string{"--greylist", "0"}, "from 1 to 100"},
		{[]string{"--greylist", "2", "--for", "forever"}, "from 1s to 168h"},
		{[]string{"--permanent"}, "permanent goes with an error rate"},
		{[]string{"--for", "10m"}, "no kind switched on"},
		{[]string{"--off", "--greylist", "2"}, "--off switches chaos off"},
	} {
		r := h.run(append([]string{"inbox", "chaos", "qa@sandbox.test"}, tt.args...)...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) || len(lines) != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line saying %q", tt.args, r.code, r.stderr, exitUsage, tt.want)
		}
	}
}

// TestCLIInboxChaos sets, prints and switches off an inbox's chaos on a
// server with chaos on, as docs/commands.md says: the flags map to the
// spec's config, --json prints the stored form, no flag prints it as
// text.
func TestCLIInboxChaos(t *testing.T) {
	h := newCLI(t, func(cfg *server.Config) { cfg.Chaos = true })
	in := decodeJSON[inboxView](t, h.must("inbox", "create", "--json"))
	if text := h.must("inbox", "chaos").stdout; text != "chaos on "+in.EmailAddress+": off\n" {
		t.Fatalf("chaos of a new inbox (the only one, no ADDRESS): %q", text)
	}
	before := time.Now()
	set := decodeJSON[model.ChaosConfig](t, h.must("inbox", "chaos", in.EmailAddress, "--latency", "500ms-3s", "--drop", "0.1", "--reset",
		"--error", "0.3", "--permanent", "--greylist", "2", "--blackhole", "--for", "10m", "--json"))
	exp, ok := set.ChaosExpiry()
	if !set.Enabled || !ok || exp.Before(before.Add(10*time.Minute-time.Second)) || exp.After(time.Now().Add(10*time.Minute)) {
		t.Fatalf("enabled %v, expiresAt %v: want now + 10m", set.Enabled, set.ExpiresAt)
	}
	if l := set.Latency; l == nil || l.MinDelayMs != 500 || l.MaxDelayMs != 3000 || !l.Jitter {
		t.Fatalf("latency %+v", l)
	}
	if d := set.ConnectionDrop; d == nil || d.Probability != 0.1 || d.Graceful {
		t.Fatalf("drop %+v", d)
	}
	if e := set.RandomError; e == nil || e.ErrorRate != 0.3 || strings.Join(e.ErrorTypes, ",") != "temporary,permanent" {
		t.Fatalf("error %+v", e)
	}
	if g := set.Greylist; g == nil || g.MaxAttempts != 2 || set.Blackhole == nil || !set.Blackhole.Enabled {
		t.Fatalf("greylist %+v, blackhole %+v", g, set.Blackhole)
	}
	text := h.must("inbox", "chaos", in.EmailAddress).stdout
	for _, want := range []string{"chaos on " + in.EmailAddress + ": on until ", "left)", "latency    500ms-3s, probability 1",
		"drop       probability 0.1, reset", "error      rate 0.3, temporary+permanent", "greylist   passes attempt 2, window 5m0s, by ip_sender",
		"blackhole  no webhooks"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the printed config lacks %q:\n%s", want, text)
		}
	}
	if off := h.must("inbox", "chaos", in.EmailAddress, "--off", "--json").stdout; strings.TrimSpace(off) != `{
  "enabled": false
}` {
		t.Fatalf("--off --json printed %q", off)
	}
	if cfg := decodeJSON[model.ChaosConfig](t, h.must("inbox", "chaos", in.EmailAddress, "--json")); cfg.Enabled || cfg.Greylist != nil {
		t.Fatalf("after --off the server holds %+v", cfg)
	}
	// Chaos is keyed by address: another keystore, without the inbox's
	// keys (as --local's catch-all is to a second terminal), reaches it.
	other := *h
	other.home = t.TempDir()
	if cfg := decodeJSON[model.ChaosConfig](t, other.must("inbox", "chaos", in.EmailAddress, "--greylist", "3", "--json")); cfg.Greylist == nil || cfg.Greylist.MaxAttempts != 3 {
		t.Fatalf("set from a keystore without the inbox: %+v", cfg)
	}
	if cfg := decodeJSON[model.ChaosConfig](t, h.must("inbox", "chaos", in.EmailAddress, "--json")); cfg.Greylist == nil || cfg.Greylist.MaxAttempts != 3 {
		t.Fatalf("the inbox's own keystore reads %+v", cfg)
	}
}

// TestCLIInboxChaosOnAServerWithChaosOff says in one line how to switch
// chaos on (exit 1).
func TestCLIInboxChaosOnAServerWithChaosOff(t *testing.T) {
	h := newCLI(t)
	in := decodeJSON[inboxView](t, h.must("inbox", "create", "--json"))
	r := h.run("inbox", "chaos", in.EmailAddress, "--greylist", "2")
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); r.code != exitFailure || len(lines) != 1 ||
		!strings.Contains(r.stderr, "chaos is disabled on this server: start it with --chaos") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}
