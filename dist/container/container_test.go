// Package container_test checks the release build: the container image's
// definition (Containerfile) and the binary .goreleaser.yaml builds, which
// the image holds alone, so it must be statically linked.
package container_test

import (
	"bufio"
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// instructions are a Containerfile's instructions, one a line, comments
// and blank lines dropped.
func instructions(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestContainerfile: one stage FROM scratch that copies the binary in and
// runs it (`serve --data /data` by default), and nothing that needs a
// shell or anything else the empty image lacks.
func TestContainerfile(t *testing.T) {
	got := instructions(t, "Containerfile")
	if len(got) == 0 || got[0] != "FROM scratch" {
		t.Fatalf("the image does not start FROM scratch: %q", got)
	}
	for _, want := range []string{
		"COPY sandview /sandview",
		`ENTRYPOINT ["/sandview"]`,
		`CMD ["serve", "--data", "/data"]`,
		"VOLUME /data",
		"ENV SVC_SMTP=0.0.0.0:2525 SVC_HTTP=0.0.0.0:8125",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("Containerfile has no %q: %q", want, got)
		}
	}
	for _, in := range got {
		word := strings.Fields(in)[0]
		if word == "RUN" || (word == "FROM" && in != got[0]) || word == "SHELL" {
			t.Errorf("Containerfile: %q needs more than the static binary", in)
		}
	}
}

// goreleaserBuild is what .goreleaser.yaml's build sets: its environment
// (KEY=VALUE lines), go build flags and ldflags, as written.
type goreleaserBuild struct{ env, flags, ldflags []string }

// readGoreleaserBuild reads the lists under builds' env, flags and ldflags.
func readGoreleaserBuild(t *testing.T) goreleaserBuild {
	t.Helper()
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var b goreleaserBuild
	var list *[]string
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "env:":
			list = &b.env
		case trimmed == "flags:":
			list = &b.flags
		case trimmed == "ldflags:":
			list = &b.ldflags
		case strings.HasPrefix(trimmed, "- ") && list != nil:
			*list = append(*list, strings.TrimPrefix(trimmed, "- "))
		case strings.HasPrefix(trimmed, "#"):
		default:
			list = nil
		}
	}
	if len(b.env) == 0 || len(b.ldflags) == 0 {
		t.Fatalf(".goreleaser.yaml: no build env or ldflags found: %+v", b)
	}
	return b
}

// TestReleaseBinaryStaticAndStamped builds sandview as .goreleaser.yaml
// does (its env, flags and ldflags, templates filled in): the binary has
// no ELF interpreter and needs no shared library (it runs FROM scratch),
// and --version prints the version, commit and date stamped at link time.
func TestReleaseBinaryStaticAndStamped(t *testing.T) {
	b := readGoreleaserBuild(t)
	if !slices.Contains(b.env, "CGO_ENABLED=0") {
		t.Fatalf(".goreleaser.yaml builds without CGO_ENABLED=0: %q", b.env)
	}
	const version, commit, date = "9.8.7-test", "0123456789abcdef0123456789abcdef01234567", "2026-01-02T03:04:05Z"
	values := map[string]string{"Version": version, "FullCommit": commit, "CommitDate": date}
	template := regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)
	ldflags := template.ReplaceAllStringFunc(strings.Join(b.ldflags, " "), func(m string) string {
		name := template.FindStringSubmatch(m)[1]
		v, ok := values[name]
		if !ok {
			t.Fatalf("ldflags use the template %s, which this test does not fill", m)
		}
		return v
	})
	bin := filepath.Join(t.TempDir(), "sandview")
	args := append([]string{"build"}, b.flags...)
	build := exec.Command("go", append(args, "-ldflags", ldflags, "-o", bin, "sandview")...)
	build.Env = append(append(os.Environ(), b.env...), "GOOS=linux", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the release binary is dynamically linked: it has a %v program header", p.Type)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("the release binary needs shared libraries %q (%v)", libs, err)
	}

	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("sandview --version: %v", err)
	}
	if want := "sandview " + version + "\ncommit " + commit + " (" + date + ")\n"; !strings.HasPrefix(string(out), want) {
		t.Fatalf("--version printed %q, want it to start %q", out, want)
	}
	out, err = exec.Command(bin, "version", "--json").Output()
	var v struct{ Version, Commit, CommitTime string }
	if err != nil || json.Unmarshal(out, &v) != nil || v.Version != version || v.Commit != commit || v.CommitTime != date {
		t.Fatalf("version --json: %s (%v)", out, err)
	}
}
