package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
)

// What a release build is stamped with, by the linker only (-ldflags
// "-X sandview/internal/cli.stampedVersion=1.2.3 ..."; .goreleaser.yaml):
// never assigned at run time. Empty in a plain `go build`, which falls back
// to the build info the go command records.
var (
	stampedVersion string
	stampedCommit  string
	stampedDate    string // the commit's date, RFC 3339
)

// buildVersion is what the binary knows of its own build: the version,
// commit and commit date stamped at link time by a release build, else
// the module version and the VCS commit the go command stamped into it.
type buildVersion struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Time     string `json:"commitTime,omitempty"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

func readBuildVersion() buildVersion {
	v := buildVersion{Version: "(unknown)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if stampedVersion != "" {
		v.Version, v.Commit, v.Time = stampedVersion, stampedCommit, stampedDate
		return v
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the version as `sandview version` and --version print it.
func (v buildVersion) String() string {
	commit := "commit unknown (built without VCS information)"
	if v.Commit != "" {
		commit = "commit " + v.Commit
		if v.Time != "" {
			commit += " (" + v.Time + ")"
		}
		if v.Modified {
			commit += ", with uncommitted changes"
		}
	}
	return fmt.Sprintf("sandview %s\n%s\n%s %s\n", v.Version, commit, v.Go, v.Platform)
}

func newVersionCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print sandview's version and the commit it was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printVersion(cmd.OutOrStdout(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	inapplicable(cmd, false, "url", "api-key", "home", "local")
	return cmd
}

func printVersion(w io.Writer, asJSON bool) error {
	v := readBuildVersion()
	if asJSON {
		return cmdutil.PrintJSON(w, v)
	}
	_, err := io.WriteString(w, v.String())
	return err
}
