package core_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCoreImportsNoStoreImplementation: the core, with everything it
// imports, holds no store implementation, only server/store's interfaces
// (the server opens the store and hands it in).
func TestCoreImportsNoStoreImplementation(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var stores []string
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "sandview/server/store") || strings.Contains(pkg, "bbolt") || strings.Contains(pkg, "jackc/pg") {
			stores = append(stores, pkg)
		}
	}
	if strings.Join(stores, " ") != "sandview/server/store" {
		t.Errorf("the core depends on %v, want sandview/server/store alone", stores)
	}
}
