package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIImportRefusesHostileExports: export files whose address hides
// control characters or path syntax, or that give a plain inbox a secret
// key, are refused with an error naming the problem (no raw control byte
// on the terminal) and exit 1; nothing reaches the keystore.
func TestCLIImportRefusesHostileExports(t *testing.T) {
	h := newCLI(t)
	exported := filepath.Join(t.TempDir(), "genuine.json")
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	h.must("inbox", "export", address, exported)
	var genuine map[string]any
	data, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &genuine); err != nil {
		t.Fatal(err)
	}
	other := &cli{t: t, srv: h.srv, home: t.TempDir(), ctx: h.ctx}
	for name, tc := range map[string]struct {
		change func(m map[string]any)
		want   string
	}{
		"ESC":          {func(m map[string]any) { m["emailAddress"] = "ceo\x1b[8m@bank.test" }, "control character U+001B"},
		"NUL":          {func(m map[string]any) { m["emailAddress"] = "a\x00@x.test" }, "control character U+0000"},
		"path":         {func(m map[string]any) { m["emailAddress"] = "../../x@y.test" }, "not a path"},
		"dot-dot":      {func(m map[string]any) { m["emailAddress"] = "..@y.test" }, `path part ".."`},
		"plain secret": {func(m map[string]any) { m["encrypted"] = false }, "plain inbox has no key"},
	} {
		m := map[string]any{}
		for k, v := range genuine {
			m[k] = v
		}
		tc.change(m)
		file := filepath.Join(t.TempDir(), "hostile.json")
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r := other.run("inbox", "import", file)
		if r.code != exitFailure || !strings.Contains(r.stderr, tc.want) || strings.ContainsAny(r.stdout+r.stderr, "\x00\x1b") {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 naming %q, no control bytes", name, r.code, r.stderr, tc.want)
		}
	}
	if listed := decodeJSON[[]inboxView](t, other.must("inbox", "list", "--json")); len(listed) != 0 {
		t.Fatalf("a hostile export was loaded: %+v", listed)
	}
}
