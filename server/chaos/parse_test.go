package chaos

import (
	"strings"
	"testing"
)

// TestParseRefuses: each failure of chaos.md section 3 in the reference's
// words; the spec's example exactly.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ prefix, body, want string }{
		{"", `{"enabled":true,"latency":{"enabled":true,"maxDelayMs":120000,"probability":1.5}}`, "latency.maxDelayMs must not be greater than 60000|latency.probability must not be greater than 1"},
		{"", `{}`, "enabled must be a boolean value"},
		{"", `[]`, "enabled must be a boolean value"},
		{"", `{"enabled":"true"}`, "enabled must be a boolean value"},
		{"", `{"enabled":true,"expiresAt":5}`, "expiresAt must be a string"},
		{"", `{"enabled":true,"foo":1}`, "property foo should not exist"},
		{"", `{"enabled":true,"latency":{"enabled":true,"foo":1}}`, "latency.property foo should not exist"},
		{"", `{"enabled":true,"latency":5}`, "nested property latency must be either object or array"},
		{"", `{"enabled":true,"latency":{}}`, "latency.enabled must be a boolean value"},
		{"", `{"enabled":true,"latency":{"enabled":true,"minDelayMs":"100"}}`, "latency.minDelayMs must be a number conforming to the specified constraints"},
		{"", `{"enabled":true,"latency":{"enabled":true,"minDelayMs":-1}}`, "latency.minDelayMs must not be less than 0"},
		{"", `{"enabled":true,"latency":{"enabled":true,"jitter":1}}`, "latency.jitter must be a boolean value"},
		{"", `{"enabled":true,"connectionDrop":{"enabled":true,"probability":-0.5}}`, "connectionDrop.probability must not be less than 0"},
		{"", `{"enabled":true,"randomError":{"enabled":true,"errorRate":2.0}}`, "randomError.errorRate must not be greater than 1"},
		{"", `{"enabled":true,"randomError":{"enabled":true,"errorTypes":"temporary"}}`, "randomError.errorTypes must be an array"},
		{"", `{"enabled":true,"randomError":{"enabled":true,"errorTypes":["fatal"]}}`, "randomError.each value in errorTypes must be one of the following values: temporary, permanent"},
		{"", `{"enabled":true,"greylist":{"enabled":true,"maxAttempts":0}}`, "greylist.maxAttempts must not be less than 1"},
		{"", `{"enabled":true,"greylist":{"enabled":true,"trackBy":"domain"}}`, "greylist.trackBy must be one of the following values: ip, sender, ip_sender"},
		{"", `{"enabled":true,"blackhole":{"enabled":true,"triggerWebhooks":"no"}}`, "blackhole.triggerWebhooks must be a boolean value"},
		{"chaos.", `{"enabled":true,"latency":{"enabled":true,"maxDelayMs":120000}}`, "chaos.latency.maxDelayMs must not be greater than 60000"},
	} {
		_, problems := Parse([]byte(tc.body), tc.prefix)
		if got := strings.Join(problems, "|"); got != tc.want {
			t.Errorf("Parse(%s):\n got %q\nwant %q", tc.body, got, tc.want)
		}
	}
}

// TestParseAccepts: zero values, fractions, repeats, nulls and min > max
// are valid; nulls and absent fields take the defaults.
func TestParseAccepts(t *testing.T) {
	cfg, problems := Parse([]byte(`{"enabled":true,"expiresAt":null,"latency":{"enabled":false,"minDelayMs":5000.5,"maxDelayMs":1000,"probability":null},"randomError":{"enabled":true,"errorTypes":["permanent","permanent"]},"greylist":null}`), "")
	if problems != nil {
		t.Fatalf("refused: %v", problems)
	}
	if cfg.ExpiresAt != nil || cfg.Latency == nil || cfg.Latency.MinDelayMs != 5000.5 || cfg.Latency.Probability != 1 || !cfg.Latency.Jitter || cfg.Greylist != nil || len(cfg.RandomError.ErrorTypes) != 2 || cfg.RandomError.ErrorRate != DefaultErrorRate {
		t.Fatalf("normalized %+v %+v", cfg, cfg.Latency)
	}
}
