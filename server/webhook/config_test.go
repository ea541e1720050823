package webhook

import (
	"strings"
	"testing"
	"time"
)

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{
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
	}
	cfg, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Enabled || cfg.MaxGlobal != 7 || cfg.MaxPerInbox != 3 || cfg.Timeout != 2500*time.Millisecond || cfg.MaxAttempts != 2 ||
		cfg.MaxQueuedRetriesPerWebhook != 9 || !cfg.AllowHTTP || !cfg.AllowPrivate || !cfg.RequireAuthDefault || cfg.MaxHeaders != 20 || cfg.MaxHeaderValueLen != 100 {
		t.Errorf("parsed %+v", cfg)
	}

	def, err := ConfigFromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if !def.Enabled || def.MaxGlobal != 100 || def.MaxPerInbox != 50 || def.Timeout != 10*time.Second || def.MaxAttempts != 5 ||
		def.MaxQueuedRetriesPerWebhook != 100 || def.AllowHTTP || def.AllowPrivate || def.RequireAuthDefault || def.MaxHeaders != 50 ||
		def.MaxHeaderValueLen != 1000 || len(def.RetrySchedule) != 5 || def.RetrySchedule[4] != 4*time.Hour {
		t.Errorf("defaults %+v", def)
	}

	for name, value := range map[string]string{
		"SVC_WEBHOOK_ENABLED":     "maybe",
		"SVC_WEBHOOK_TIMEOUT":     "10s",
		"SVC_WEBHOOK_MAX_RETRIES": "0",
		"SVC_WEBHOOK_MAX_GLOBAL":  "-1",
	} {
		_, err := ConfigFromEnv(func(k string) string {
			if k == name {
				return value
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), value) {
			t.Errorf("%s=%s: error %v should name the variable and the value", name, value, err)
		}
	}
}

func TestRetryDelayScales(t *testing.T) {
	cfg, err := Config{TimeScale: 0.5, RetrySchedule: []time.Duration{0, time.Second, 4 * time.Second}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for attempt, want := range map[int]time.Duration{1: 0, 2: 500 * time.Millisecond, 3: 2 * time.Second, 7: 2 * time.Second} {
		if got := cfg.retryDelay(attempt); got != want {
			t.Errorf("attempt %d: %v, want %v", attempt, got, want)
		}
	}
	if _, err := (Config{MaxGlobal: -1}).withDefaults(); err == nil {
		t.Error("negative limit accepted")
	}
}
