package cli

import (
	"strings"
	"testing"
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
