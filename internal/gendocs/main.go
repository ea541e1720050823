// Command gendocs writes the man pages and shell completions of sandview's
// command tree into a directory, for the release packages
// (.goreleaser.yaml runs it): go run ./internal/gendocs DIR DATE. DATE
// (RFC 3339: a release gives its commit's date) dates the man pages, so a
// rebuild of one commit gives the same files.
package main

import (
	"fmt"
	"os"
	"time"

	"sandview/internal/cli"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: gendocs DIR DATE (RFC 3339, e.g. 2026-01-02T15:04:05Z)")
	}
	date, err := time.Parse(time.RFC3339, args[1])
	if err != nil {
		return fmt.Errorf("date: %w", err)
	}
	return cli.WriteDocs(args[0], date.UTC())
}
