// Package systemd_test checks the systemd unit shipped in dist/systemd.
package systemd_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnitVerifies: systemd-analyze verify accepts sandview.service
// without a warning (it exits 0 on unknown keys, so any output fails the
// test), and the unit keeps its promises: a dedicated user, a state
// directory, restart on failure, the hardening options. verify checks
// that ExecStart's program exists, so the copy it reads runs true in
// place of sandview (both found on systemd's search path, as the unit
// gives no directory: /usr/local/bin by hand, /usr/bin from a package);
// nothing else is changed.
func TestUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatalf("systemd-analyze is needed (.ci/run installs systemd): %v", err)
	}
	unit, err := os.ReadFile("sandview.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"User=sandview", "StateDirectory=sandview", "StateDirectoryMode=0700", "Restart=on-failure",
		"ExecStart=sandview serve --data ${STATE_DIRECTORY}", "NoNewPrivileges=yes",
		"ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "CapabilityBoundingSet=CAP_NET_BIND_SERVICE",
		"SystemCallFilter=@system-service", "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
	} {
		if !strings.Contains(string(unit), "\n"+want+"\n") {
			t.Errorf("the unit has no line %q", want)
		}
	}
	copyPath := filepath.Join(t.TempDir(), "sandview.service")
	checked := strings.Replace(string(unit), "ExecStart=sandview ", "ExecStart=true ", 1)
	if err := os.WriteFile(copyPath, []byte(checked), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", copyPath).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	users, err := os.ReadFile("sandview.sysusers")
	if err != nil || !strings.Contains(string(users), "\nu sandview - ") {
		t.Fatalf("sandview.sysusers does not create the user sandview: %v", err)
	}
}
