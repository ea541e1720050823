package cli

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// mapEnvironment is an environment of the given variables only.
func mapEnvironment(env map[string]string) environment {
	return environment{lookup: func(name string) (string, bool) { v, ok := env[name]; return v, ok }}
}

// serveSettingsFrom registers serve's flags, parses args and applies env,
// as `serve` does.
func serveSettingsFrom(t *testing.T, args []string, env map[string]string) (*serverSettings, error) {
	t.Helper()
	var s serverSettings
	f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	s.registerServe(f)
	if err := f.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &s, s.applyEnv(f, mapEnvironment(env))
}

// TestWebhookSettingsFromEnv: the SVC_WEBHOOK_* variables fill the webhook
// engine's configuration over its defaults; an empty variable keeps the
// default, a malformed one is an error naming the variable and the value.
func TestWebhookSettingsFromEnv(t *testing.T) {
	s, err := serveSettingsFrom(t, nil, map[string]string{
		"SVC_WEBHOOK_ENABLED":                 "false",
		"SVC_WEBHOOK_MAX_GLOBAL":              "7",
		"SVC_WEBHOOK_MAX_INBOX":               "3",
		"SVC_WEBHOOK_TIMEOUT":                 "2500",
		"SVC_WEBHOOK_MAX_RETRIES":             "2",
		"SVC_WEBHOOK_MAX_RETRIES_PER_WEBHOOK": "9",
		"SVC_WEBHOOK_ALLOW_HTTP":              "true",
		"SVC_WEBHOOK_ALLOW_PRIVATE":           "true",
		"SVC_WEBHOOK_REQUIRE_AUTH_DEFAULT":    "1",
		"SVC_WEBHOOK_MAX_HEADERS":             "20",
		"SVC_WEBHOOK_MAX_HEADER_VALUE_LEN":    " 100 ",
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.webhooks
	if cfg.Enabled || cfg.MaxGlobal != 7 || cfg.MaxPerInbox != 3 || cfg.Timeout != 2500*time.Millisecond || cfg.MaxAttempts != 2 ||
		cfg.MaxQueuedRetriesPerWebhook != 9 || !cfg.AllowHTTP || !cfg.AllowPrivate || !cfg.RequireAuthDefault || cfg.MaxHeaders != 20 || cfg.MaxHeaderValueLen != 100 {
		t.Errorf("parsed %+v", cfg)
	}

	s, err = serveSettingsFrom(t, nil, map[string]string{"SVC_WEBHOOK_MAX_GLOBAL": ""})
	if err != nil {
		t.Fatal(err)
	}
	def := s.webhooks
	if !def.Enabled || def.MaxGlobal != 100 || def.MaxPerInbox != 50 || def.Timeout != 10*time.Second || def.MaxAttempts != 5 ||
		def.MaxQueuedRetriesPerWebhook != 100 || def.AllowHTTP || def.AllowPrivate || def.RequireAuthDefault || def.MaxHeaders != 50 ||
		def.MaxHeaderValueLen != 1000 {
		t.Errorf("defaults %+v", def)
	}

	for name, value := range map[string]string{
		"SVC_WEBHOOK_ENABLED":     "maybe",
		"SVC_WEBHOOK_TIMEOUT":     "10s",
		"SVC_WEBHOOK_MAX_RETRIES": "0",
		"SVC_WEBHOOK_MAX_GLOBAL":  "-1",
	} {
		_, err := serveSettingsFrom(t, nil, map[string]string{name: value})
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), value) {
			t.Errorf("%s=%s: error %v should name the variable and the value", name, value, err)
		}
	}
}

// TestFlagWinsOverEnv: a flag given on the command line wins over its
// variable; the others come from their variables.
func TestFlagWinsOverEnv(t *testing.T) {
	s, err := serveSettingsFrom(t, []string{"--private-webhooks=false", "--http", "127.0.0.1:1"},
		map[string]string{"SVC_WEBHOOK_ALLOW_PRIVATE": "true", "SVC_HTTP": "127.0.0.1:2", "SVC_SMTP": "127.0.0.1:3"})
	if err != nil {
		t.Fatal(err)
	}
	if s.webhooks.AllowPrivate || s.cfg.HTTPAddr != "127.0.0.1:1" || s.cfg.SMTPAddr != "127.0.0.1:3" {
		t.Errorf("allowPrivate %v, http %q, smtp %q", s.webhooks.AllowPrivate, s.cfg.HTTPAddr, s.cfg.SMTPAddr)
	}
}

// TestEverySettingOnce: each setting has a flag, a variable and help of
// its own, and its help names the variable.
func TestEverySettingOnce(t *testing.T) {
	var s serverSettings
	flags, vars := map[string]bool{}, map[string]bool{}
	for _, st := range s.table() {
		if st.flag == "" || !strings.HasPrefix(st.env, "SVC_") || st.help == "" || st.bind == nil {
			t.Errorf("incomplete setting %+v", st)
		}
		if flags[st.flag] || vars[st.env] {
			t.Errorf("%s (%s) declared twice", st.flag, st.env)
		}
		flags[st.flag], vars[st.env] = true, true
		if !strings.Contains(st.usage(""), "$"+st.env) {
			t.Errorf("--%s's help %q does not name %s", st.flag, st.usage(""), st.env)
		}
	}
}

// TestLocalTakesItsSettings: `sandview --local` takes the settings marked
// local, from flags (the earlier --smtp-addr and --http-addr too) or
// their variables; the others are serve's only.
func TestLocalTakesItsSettings(t *testing.T) {
	root := &cobra.Command{}
	l := &localOptions{}
	l.register(root)
	if err := root.Flags().Parse([]string{"--smtp-addr", "127.0.0.1:9", "--max-message-bytes", "5"}); err != nil {
		t.Fatal(err)
	}
	env := mapEnvironment(map[string]string{"SVC_SMTP": "127.0.0.1:1", "SVC_HTTP": "127.0.0.1:2", "SVC_SMTP_MAX_CONNS": "3", "SVC_MAX_TTL": "soon"})
	if err := l.server.applyEnv(l.flags, env); err != nil {
		t.Fatal(err)
	}
	s := l.server.cfg
	if s.SMTPAddr != "127.0.0.1:9" || s.HTTPAddr != "127.0.0.1:2" || s.SMTP.MaxMessageBytes != 5 || s.SMTP.MaxConns != 3 {
		t.Errorf("smtp %q, http %q, max message bytes %d, max conns %d", s.SMTPAddr, s.HTTPAddr, s.SMTP.MaxMessageBytes, s.SMTP.MaxConns)
	}
	if root.Flags().Lookup("max-ttl") != nil {
		t.Error("--local takes --max-ttl")
	}
}

// TestMemoryPolicy: --memory-limit and SVC_MEMORY_LIMIT take sizes as
// GOMEMLIMIT does; serve sets the runtime's soft limit and GC percent from
// --memory-limit and --gc-percent when given, else from their defaults
// unless GOMEMLIMIT or GOGC tune the runtime already, and restores the
// previous values when it returns.
func TestMemoryPolicy(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want int64
	}{
		{nil, nil, defaultMemoryLimit},
		{[]string{"--memory-limit", "512MiB"}, nil, 512 << 20},
		{nil, map[string]string{"SVC_MEMORY_LIMIT": " 2GiB "}, 2 << 30},
		{[]string{"--memory-limit=1000"}, map[string]string{"SVC_MEMORY_LIMIT": "2GiB"}, 1000},
		{[]string{"--memory-limit=0"}, nil, 0},
	} {
		s, err := serveSettingsFrom(t, c.args, c.env)
		if err != nil || s.memoryLimit != c.want {
			t.Errorf("%v %v: limit %d (%v), want %d", c.args, c.env, s.memoryLimit, err, c.want)
		}
	}
	if _, err := serveSettingsFrom(t, nil, map[string]string{"SVC_MEMORY_LIMIT": "lots"}); err == nil || !strings.Contains(err.Error(), "SVC_MEMORY_LIMIT") {
		t.Errorf("a malformed SVC_MEMORY_LIMIT: %v", err)
	}

	const limitBefore, percentBefore = 7 << 30, 150
	prevLimit, prevPercent := debug.SetMemoryLimit(limitBefore), debug.SetGCPercent(percentBefore)
	defer func() { debug.SetMemoryLimit(prevLimit); debug.SetGCPercent(prevPercent) }()
	current := func() (int64, int) {
		percent := debug.SetGCPercent(percentBefore)
		debug.SetGCPercent(percent)
		return debug.SetMemoryLimit(-1), percent
	}
	for _, c := range []struct {
		args        []string
		env         map[string]string
		wantLimit   int64
		wantPercent int
	}{
		{nil, nil, defaultMemoryLimit, defaultGCPercent},
		{nil, map[string]string{"GOMEMLIMIT": "1GiB"}, limitBefore, percentBefore},
		{nil, map[string]string{"GOGC": "50"}, limitBefore, percentBefore},
		{[]string{"--memory-limit=300MiB"}, map[string]string{"GOGC": "50"}, 300 << 20, percentBefore},
		{[]string{"--gc-percent=40"}, map[string]string{"GOMEMLIMIT": "1GiB"}, limitBefore, 40},
		{[]string{"--memory-limit=0", "--gc-percent=100"}, nil, math.MaxInt64, 100},
	} {
		var s serverSettings
		f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		s.registerServe(f)
		if err := f.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		restore := s.applyMemoryPolicy(f, mapEnvironment(c.env))
		if limit, percent := current(); limit != c.wantLimit || percent != c.wantPercent {
			t.Errorf("%v %v: limit %d, GC percent %d; want %d, %d", c.args, c.env, limit, percent, c.wantLimit, c.wantPercent)
		}
		restore()
		if limit, percent := current(); limit != limitBefore || percent != percentBefore {
			t.Errorf("%v %v: restored %d, %d", c.args, c.env, limit, percent)
		}
	}
}

// TestChaosSetting: --chaos and its variables, SVC_CHAOS_ENABLED or the
// reference's VSB_CHAOS_ENABLED, read as chaos.md section 1 says: true,
// 1, yes and on (any case, spaces trimmed) are on, anything else off;
// the flag wins, and --chaos alone is on.
func TestChaosSetting(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want bool
	}{
		{nil, nil, false},
		{[]string{"--chaos"}, nil, true},
		{[]string{"--chaos=false"}, map[string]string{"SVC_CHAOS_ENABLED": "true"}, false},
		{nil, map[string]string{"SVC_CHAOS_ENABLED": " YES "}, true},
		{nil, map[string]string{"VSB_CHAOS_ENABLED": "on"}, true},
		{nil, map[string]string{"VSB_CHAOS_ENABLED": "1"}, true},
		{nil, map[string]string{"SVC_CHAOS_ENABLED": "0", "VSB_CHAOS_ENABLED": "true"}, false},
		{nil, map[string]string{"VSB_CHAOS_ENABLED": "maybe"}, false},
		{nil, map[string]string{"SVC_CHAOS_ENABLED": "false"}, false},
	} {
		s, err := serveSettingsFrom(t, tc.args, tc.env)
		if err != nil || s.cfg.Chaos != tc.want {
			t.Errorf("args %q env %v: chaos %v (%v), want %v", tc.args, tc.env, s.cfg.Chaos, err, tc.want)
		}
	}
	var s serverSettings
	f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	s.registerServe(f)
	if usage := f.Lookup("chaos").Usage; !strings.Contains(usage, "$SVC_CHAOS_ENABLED or $VSB_CHAOS_ENABLED") {
		t.Errorf("--chaos's help %q does not name both variables", usage)
	}
}
