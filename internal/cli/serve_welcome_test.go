package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServePageForABrowser: `sandview serve --advertise box.example`
// answers a browser's GET / with a page naming its version and every way
// in by the advertised name: the TUI's --url, the SMTP address, the SSH
// box's ssh command (or, without --ssh, how to switch it on); an API
// client's GET / gets the API's 401 as before.
func TestServePageForABrowser(t *testing.T) {
	var version buildVersion
	out, err := exec.Command(builtBinary, "version", "--json").Output()
	if err != nil || json.Unmarshal(out, &version) != nil || version.Version == "" {
		t.Fatalf("sandview version --json: %q, %v", out, err)
	}
	for _, withSSH := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		dir := t.TempDir()
		args := []string{"serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--data", filepath.Join(dir, "data"), "--advertise", "box.example"}
		if withSSH {
			keys := filepath.Join(dir, "authorized_keys")
			if err := os.WriteFile(keys, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			args = append(args, "--ssh", "127.0.0.1:0", "--ssh-authorized-keys", keys)
		}
		cmd := exec.CommandContext(ctx, builtBinary, args...)
		cmd.Env = append(os.Environ(), "SVC_API_KEY=page-test-key")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		var banner strings.Builder
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			banner.WriteString(lines.Text() + "\n")
			if strings.HasPrefix(lines.Text(), "export SMTP_HOST=") {
				break
			}
		}
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		text := banner.String()
		httpPort := regexp.MustCompile(`(?m)^  HTTP API  http://box\.example:(\d+)$`).FindStringSubmatch(text)
		smtpLine := regexp.MustCompile(`(?m)^  SMTP      (box\.example:\d+)$`).FindStringSubmatch(text)
		if httpPort == nil || smtpLine == nil {
			t.Fatalf("no HTTP or SMTP line in the banner:\n%s", text)
		}
		url := "http://" + net.JoinHostPort("127.0.0.1", httpPort[1]) + "/"
		page := getWithAccept(t, url, "text/html,application/xhtml+xml,*/*;q=0.8")
		for _, want := range []string{
			"<h1>sandview " + version.Version + "</h1>", "sandview --url http://box.example:" + httpPort[1] + " --api-key KEY",
			"<pre>" + smtpLine[1] + "</pre>", "X-API-Key",
		} {
			if !strings.Contains(page, want) {
				t.Errorf("ssh %v: the page lacks %q:\n%s", withSSH, want, page)
			}
		}
		if withSSH {
			sshPort := regexp.MustCompile(`\(ssh -p (\d+) box\.example;`).FindStringSubmatch(text)
			if sshPort == nil || !strings.Contains(page, "ssh -t -p "+sshPort[1]+" box.example") {
				t.Errorf("the page does not name the SSH box of the banner %q:\n%s", sshPort, page)
			}
		} else if !strings.Contains(page, "SSH is off") || !strings.Contains(page, "sandview serve --ssh HOST:PORT") {
			t.Errorf("without --ssh the page does not say how to switch SSH on:\n%s", page)
		}
		if api := getWithAccept(t, url, "application/json"); api != `{"statusCode":401,"message":"missing X-API-Key header","error":"Unauthorized"}` {
			t.Errorf("an API client's GET /: %q", api)
		}
	}
}

// getWithAccept is the body of a GET of url with accept.
func getWithAccept(t *testing.T, url, accept string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}
