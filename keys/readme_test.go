package keys

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the README's key table")

// The README's key table sits between these markers.
const (
	tableStart = "<!-- keys:start (generated from keys/: go test ./keys -run TestREADMEKeyTable -update) -->\n"
	tableEnd   = "<!-- keys:end -->"
)

// TestREADMEKeyTable fails when the README's key table is not the one the
// key maps make; -update rewrites it.
func TestREADMEKeyTable(t *testing.T) {
	const path = "../README.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start, end := strings.Index(readme, tableStart), strings.Index(readme, tableEnd)
	if start < 0 || end < start {
		t.Fatalf("README.md lacks the key table markers %q … %q", tableStart, tableEnd)
	}
	want := Markdown()
	if got := readme[start+len(tableStart) : end]; got != want {
		if !*update {
			t.Fatalf("README.md's key table differs from the key maps; run go test ./keys -run TestREADMEKeyTable -update\nwant:\n%s", want)
		}
		readme = readme[:start+len(tableStart)] + want + readme[end:]
		if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMarkdownEscapesThePipe checks that the pipe key does not split a
// row of the table.
func TestMarkdownEscapesThePipe(t *testing.T) {
	for _, line := range strings.Split(strings.TrimSpace(Markdown()), "\n") {
		if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 4 {
			t.Errorf("row %q has %d separators, want 4", line, n)
		}
	}
}
