package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Release files generated from the command tree (the packages install
// them; .goreleaser.yaml runs internal/gendocs): the man pages and the
// shell completions.

// The directories WriteDocs fills and the completion scripts' names in
// docsCompletions (the names the shells look for).
const (
	docsMan         = "man"
	docsCompletions = "completions"
)

// WriteDocs writes into dir the man pages of the command tree (man/:
// sandview.1 and one page a command, like sandview-email-list.1) and its
// completion scripts for bash, zsh and fish (completions/). The tree is
// the one an empty environment gets, so the pages do not depend on the
// environment of the build; date is the pages' date (a release uses its
// commit's).
func WriteDocs(dir string, date time.Time) error {
	root := newRootCommand(&globalOptions{env: listEnvironment(nil)})
	root.DisableAutoGenTag = true
	man, completions := filepath.Join(dir, docsMan), filepath.Join(dir, docsCompletions)
	for _, d := range []string{man, completions} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("docs: %w", err)
		}
	}
	header := &doc.GenManHeader{Title: "SANDVIEW", Section: "1", Date: &date, Source: "sandview", Manual: "sandview manual"}
	if err := doc.GenManTree(root, header, man); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	for path, generate := range map[string]func(*cobra.Command, *bytes.Buffer) error{
		"sandview.bash": func(c *cobra.Command, b *bytes.Buffer) error { return c.GenBashCompletionV2(b, true) },
		"_sandview":     func(c *cobra.Command, b *bytes.Buffer) error { return c.GenZshCompletion(b) },
		"sandview.fish": func(c *cobra.Command, b *bytes.Buffer) error { return c.GenFishCompletion(b, true) },
	} {
		var b bytes.Buffer
		if err := generate(root, &b); err != nil {
			return fmt.Errorf("completion %s: %w", path, err)
		}
		if err := os.WriteFile(filepath.Join(completions, path), b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("completion: %w", err)
		}
	}
	return nil
}
