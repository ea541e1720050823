package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/server/servertest"
)

// TestCLIBadInvocations: a mistyped command, a group without its command,
// a wrong number of arguments and a flag that does not apply are usage
// errors (exit 2), one line, with what was probably meant.
func TestCLIBadInvocations(t *testing.T) {
	h := &cli{t: t, home: t.TempDir(), ctx: t.Context()}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"emial", "list"}, `unknown command "emial" for "sandview"; did you mean "email"?`},
		{[]string{"email", "lst"}, `unknown command "lst" for "sandview email"; did you mean "list"?`},
		{[]string{"webhok"}, `did you mean "webhook"?`},
		{[]string{"email"}, "sandview email needs a command: attachments, check, delete, expect, links, list"},
		{[]string{"inbox"}, "sandview inbox needs a command:"},
		{[]string{"completion"}, "sandview completion needs a command: bash, fish, powershell, zsh"},
		{[]string{"inbox", "export"}, "sandview inbox export: accepts between 1 and 2 arg(s), received 0 (usage: sandview inbox export ADDRESS [FILE]"},
		{[]string{"inbox", "forget"}, "accepts 1 arg(s), received 0"},
		{[]string{"email", "show"}, "sandview email show: accepts 1 arg(s), received 0"},
		{[]string{"inbox", "list", "extra"}, `unknown command "extra" for "sandview inbox list"`},
		{[]string{"serve", "--url", "http://127.0.0.1:1"}, "--url is for the other commands: sandview serve does not use it"},
		{[]string{"config", "--local"}, "--local is for the other commands: sandview config does not use it"},
		{[]string{"config", "--smtp", "nohost"}, `--smtp "nohost": want HOST:PORT`},
	} {
		r := h.finish(h.startRaw(append([]string{"--home", h.home}, c.args...)...))
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("sandview %v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(h.home); len(entries) != 0 {
		t.Fatalf("bad invocations left %v in the home", entries)
	}
}

// TestCLIHelpShowsFlagsThatApply: serve's help has no --local or --url,
// send's no --url or --api-key, and the global --local reads as a switch.
func TestCLIHelpShowsFlagsThatApply(t *testing.T) {
	h := &cli{t: t, home: t.TempDir(), ctx: t.Context()}
	help := func(args ...string) string {
		r := h.finish(h.startRaw(append(args, "--help")...))
		if r.code != 0 {
			t.Fatalf("%v --help: exit %d, %q", args, r.code, r.stderr)
		}
		return r.stdout
	}
	serve := help("serve")
	for _, flag := range []string{"--local", "--url"} {
		if strings.Contains(serve, flag) {
			t.Errorf("serve --help lists %s", flag)
		}
	}
	if !strings.Contains(serve, "--catch-all") || !strings.Contains(serve, "--home") {
		t.Error("serve --help lost its own flags")
	}
	send := help("send")
	if strings.Contains(send, "--url") || strings.Contains(send, "--api-key") || !strings.Contains(send, "--local") {
		t.Errorf("send --help:\n%s", send)
	}
	if !regexp.MustCompile(`(?m)^\s+--local\s+on sandview itself`).MatchString(help("email", "list")) {
		t.Errorf("the --local flag reads as if it took a value:\n%s", help("email", "list"))
	}
	if inbox := help("inbox"); !strings.Contains(inbox, "Usage:\n  sandview inbox [command]\n") {
		t.Errorf("inbox --help offers to run the group alone:\n%s", inbox)
	}
	for _, leaf := range [][]string{{"inbox", "create"}, {"email", "show"}, {"webhook", "list"}} {
		if usage := "Usage:\n  sandview " + strings.Join(leaf, " ") + " "; !strings.Contains(help(leaf...), usage) {
			t.Errorf("%v --help has no usage line:\n%s", leaf, help(leaf...))
		}
	}
	// The flags are still there for the commands that use them.
	if !strings.Contains(help("email", "list"), "--url") {
		t.Error("email list --help lost --url")
	}
}

// TestCLIVersion: --version and `sandview version` print the module
// version and the commit of the binary's build info; built in a git
// checkout (a .git directory: the go command does not stamp builds in git
// worktrees), that is the checked-out commit.
func TestCLIVersion(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sandview")
	if out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, "sandview").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	stamped, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	var module, revision string
	for _, line := range strings.Split(string(stamped), "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 3 && fields[0] == "mod":
			module = fields[2]
		case len(fields) == 2 && strings.HasPrefix(fields[1], "vcs.revision="):
			revision = strings.TrimPrefix(fields[1], "vcs.revision=")
		}
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	if info, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err == nil && info.IsDir() {
		head, err := exec.Command("git", "rev-parse", "HEAD").Output()
		if err != nil || revision != strings.TrimSpace(string(head)) {
			t.Fatalf("a build in a git checkout is stamped %q, HEAD is %q (%v)", revision, head, err)
		}
	}
	run := func(args ...string) string {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("sandview %v: %v", args, err)
		}
		return string(out)
	}
	text := run("version")
	if flag := run("--version"); flag != text {
		t.Fatalf("--version %q differs from version %q", flag, text)
	}
	wantCommit := "commit unknown"
	if revision != "" {
		wantCommit = "commit " + revision
	}
	if module == "" || !strings.HasPrefix(text, "sandview "+module+"\n"+wantCommit) {
		t.Fatalf("version %q: want module version %q and %q", text, module, wantCommit)
	}
	var v buildVersion
	if err := json.Unmarshal([]byte(run("version", "--json")), &v); err != nil || v.Commit != revision || v.Version != module || !strings.HasPrefix(v.Go, "go") {
		t.Fatalf("version --json: %+v, %v", v, err)
	}
}

// TestCLIInterruptedWaitExits130: Ctrl-C (SIGINT) during `wait` exits
// 130, SIGTERM 143, without an error message.
func TestCLIInterruptedWaitExits130(t *testing.T) {
	h := newCLI(t)
	h.must("inbox", "create", "--plain")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.CommandContext(h.ctx, builtBinary, "--home", h.home, "--url", h.srv.URL(), "--api-key", servertest.APIKey,
			"wait", "--timeout", "2m", "--subject", "never")
		cmd.Env = append(os.Environ(), "SERVICE_URL=", "SERVICE_API_KEY=")
		stderrPipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewReader(stderrPipe)
		first, err := lines.ReadString('\n')
		if !strings.Contains(first, "waiting up to") {
			t.Fatalf("wait did not start waiting: %q, %v", first, err)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		rest, _ := io.ReadAll(lines)
		_ = cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) || len(rest) != 0 {
			t.Fatalf("wait on %v: exit %d, then stderr %q; want %d and nothing more", sig, code, rest, 128+int(sig))
		}
	}
}

// TestCLIWaitUnreachableServer: wait on a server that cannot be reached
// exits 1 within its timeout saying so; exit 3 stays for a server that
// answered with nothing matching.
func TestCLIWaitUnreachableServer(t *testing.T) {
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + dead.Addr().String()
	dead.Close()
	h := &cli{t: t, home: t.TempDir(), ctx: t.Context()}
	start := time.Now()
	r := h.finish(h.startRaw("--url", deadURL, "--api-key", "k", "wait", "--inbox", "qa@sandbox.test", "--timeout", "3s"))
	if r.code != exitFailure || !strings.Contains(r.stderr, "cannot reach "+deadURL) || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("wait on a dead server: exit %d, %q", r.code, r.stderr)
	}
	// The bound is loose for a loaded machine; before, it took 2.5 times
	// the timeout and exited 3.
	if took := time.Since(start); took > 3*time.Second+5*time.Second {
		t.Fatalf("wait on a dead server took %v with --timeout 3s", took)
	}

	live := newCLI(t)
	live.must("inbox", "create", "--plain")
	if r := live.run("wait", "--timeout", "1s", "--subject", "never"); r.code != exitTimeout {
		t.Fatalf("wait with nothing matching: exit %d, %q", r.code, r.stderr)
	}
}

// TestCLISendPicksItsSMTPServer: send delivers to --smtp, else
// SMTP_HOST/SMTP_PORT, else the config's --smtp, else the running local
// server, else it fails with one line saying how to choose; a configured
// HTTP server does not make it send to 127.0.0.1:1025.
func TestCLISendPicksItsSMTPServer(t *testing.T) {
	h := newCLI(t)
	inbox := decodeJSON[inboxView](t, h.must("inbox", "create", "--plain", "--json"))
	cfgd := &cli{t: t, srv: h.srv, home: t.TempDir(), ctx: h.ctx}
	cfgd.mustRaw("--home", cfgd.home, "config", "--url", h.srv.URL(), "--api-key", servertest.APIKey)
	r := cfgd.finish(cfgd.startRaw("--home", cfgd.home, "send", "--to", inbox.EmailAddress))
	if r.code != exitUsage || !strings.Contains(r.stderr, "no SMTP server to send to: pass --smtp HOST:PORT") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("send with only an HTTP server configured: exit %d, %q", r.code, r.stderr)
	}

	cfgd.mustRaw("--home", cfgd.home, "config", "--smtp", h.srv.SMTPAddr())
	shown := decodeJSON[configView](t, cfgd.mustRaw("--home", cfgd.home, "config", "--json"))
	if shown.SMTP != h.srv.SMTPAddr() || shown.URL != h.srv.URL() || !shown.APIKeySet {
		t.Fatalf("config --json: %+v", shown)
	}
	if out := cfgd.mustRaw("--home", cfgd.home, "config", "--json").stdout; strings.Contains(out, servertest.APIKey) {
		t.Fatal("config --json printed the API key")
	}
	if r := cfgd.mustRaw("--home", cfgd.home, "send", "--to", inbox.EmailAddress, "--subject", "via config"); !strings.Contains(r.stdout, "via "+h.srv.SMTPAddr()) {
		t.Fatalf("send via the config: %q", r.stdout)
	}

	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadHost, deadPort, _ := net.SplitHostPort(dead.Addr().String())
	dead.Close()
	env := cfgd.withEnv("SMTP_HOST="+deadHost, "SMTP_PORT="+deadPort)
	if r := env.finish(env.startRaw("--home", env.home, "send", "--to", inbox.EmailAddress)); r.code != exitFailure || !strings.Contains(r.stderr, "SMTP "+dead.Addr().String()) {
		t.Fatalf("SMTP_HOST/SMTP_PORT do not come before the config: exit %d, %q", r.code, r.stderr)
	}
	if r := env.mustRaw("--home", env.home, "send", "--to", inbox.EmailAddress, "--subject", "via flag", "--smtp", h.srv.SMTPAddr()); !strings.Contains(r.stdout, "via "+h.srv.SMTPAddr()) {
		t.Fatalf("--smtp does not come first: %q", r.stdout)
	}
	h.must("wait", "--inbox", inbox.EmailAddress, "--subject", "^via ", "--count", "2", "--timeout", "30s")
}

// TestCLIKeystoreHygiene: the export → import sequence of docs/commands.md works
// (importing the inbox the keystore holds is a no-op; another inbox at
// the same address is refused until it is forgotten), links and config
// print JSON, and a failed command leaves no keystore folder behind.
func TestCLIKeystoreHygiene(t *testing.T) {
	h := newCLI(t)
	if r := h.run("email", "list", "--inbox", "nobody@sandbox.test"); r.code != exitFailure {
		t.Fatalf("a missing inbox: exit %d", r.code)
	}
	if _, err := os.Stat(filepath.Join(h.home, "inboxes")); !os.IsNotExist(err) {
		t.Fatalf("a failed command left the keystore folder: %v", err)
	}

	enc := decodeJSON[inboxView](t, h.must("inbox", "create", "--json"))
	file := filepath.Join(t.TempDir(), "qa.json")
	h.must("inbox", "export", enc.EmailAddress, file)
	if r := h.must("inbox", "import", file); !strings.Contains(r.stderr, "in the keystore already") || !strings.Contains(r.stdout, enc.EmailAddress) {
		t.Fatalf("import of the same inbox: %q %q", r.stdout, r.stderr)
	}

	var forged map[string]any
	data, err := os.ReadFile(file)
	if err != nil || json.Unmarshal(data, &forged) != nil {
		t.Fatalf("read the export: %v", err)
	}
	kp, err := crypto.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	forged["secretKey"], forged["inboxHash"] = crypto.EncodeBase64URL(kp.SecretKey), crypto.InboxHash(kp.PublicKey)
	other := filepath.Join(t.TempDir(), "other.json")
	if data, err = json.Marshal(forged); err != nil || os.WriteFile(other, data, 0o600) != nil {
		t.Fatal(err)
	}
	if r := h.run("inbox", "import", other); r.code != exitFailure || !strings.Contains(r.stderr, "holds another inbox "+enc.EmailAddress) {
		t.Fatalf("import of another inbox at the address: exit %d, %q", r.code, r.stderr)
	}

	h.must("inbox", "forget", enc.EmailAddress)
	if listed := decodeJSON[[]inboxView](t, h.must("inbox", "list", "--json")); len(listed) != 0 {
		t.Fatalf("after forget the keystore holds %+v", listed)
	}
	if r := h.run("email", "list", "--inbox", enc.EmailAddress); r.code != exitFailure || !strings.Contains(r.stderr, enc.EmailAddress+" is encrypted and its key is not in this keystore") {
		t.Fatalf("the forgotten (empty, encrypted) inbox: exit %d, %q", r.code, r.stderr)
	}
	if r := decodeJSON[inboxView](t, h.must("inbox", "import", file, "--json")); r.EmailAddress != enc.EmailAddress {
		t.Fatalf("import after forget: %+v", r)
	}
	h.must("send", "--to", enc.EmailAddress, "--text", "go to https://example.org/confirm?t=1", "--smtp", h.srv.SMTPAddr())
	got := decodeJSON[[]emailView](t, h.must("wait", "--timeout", "30s", "--json"))
	if len(got) != 1 {
		t.Fatalf("wait: %+v", got)
	}
	if links := decodeJSON[[]string](t, h.must("email", "links", got[0].ID, "--json")); len(links) != 1 || links[0] != "https://example.org/confirm?t=1" {
		t.Fatalf("email links --json: %v", links)
	}
}

// TestLicense: the repository carries the MIT licence.
func TestLicense(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "LICENSE"))
	if err != nil || !strings.HasPrefix(string(text), "MIT License") || !strings.Contains(string(text), "Copyright (c) 2026 the sandview authors") {
		t.Fatalf("LICENSE: %v\n%.200s", err, text)
	}
}
