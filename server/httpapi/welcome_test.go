package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sandview/server"
	"sandview/server/httpapi"
	"sandview/server/servertest"
)

// browserAccept is the Accept header Firefox and Chrome send for a page.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// answer is one HTTP answer in words: status, headers but Date, body.
func answer(t *testing.T, method, url, accept, key string) (string, *http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if key != "" {
		req.Header.Set(httpapi.APIKeyHeader, key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range resp.Header {
		if k != "Date" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out strings.Builder
	fmt.Fprintf(&out, "%s %q %q -> %d\n", method, accept, key, resp.StatusCode)
	for _, k := range keys {
		fmt.Fprintf(&out, "  %s: %q\n", k, resp.Header[k])
	}
	fmt.Fprintf(&out, "  body %q\n", body)
	return out.String(), resp, string(body)
}

// TestRootAnswersAPIClientsAsBefore: every request to / that is not a
// browser's GET or HEAD for a page (no Accept, */*, the SDKs'
// application/json, with and without a key, a POST naming text/html)
// gets, byte for byte, the answer / gave before the page existed
// (testdata/root-api-answers.txt, recorded from the server before).
func TestRootAnswersAPIClientsAsBefore(t *testing.T) {
	srv := servertest.Start(t)
	want, err := os.ReadFile(filepath.Join("testdata", "root-api-answers.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, c := range []struct{ method, accept, key string }{
		{"GET", "", ""}, {"GET", "*/*", ""}, {"GET", "application/json", ""}, {"GET", "application/json", servertest.APIKey},
		{"GET", "*/*", servertest.APIKey}, {"HEAD", "*/*", ""}, {"POST", "text/html", ""}, {"GET", "text/html", "wrong"},
	} {
		if c.method == "GET" && c.accept == "text/html" {
			continue // a browser's: the page (below)
		}
		text, _, _ := answer(t, c.method, srv.URL()+"/", c.accept, c.key)
		got.WriteString(text)
	}
	wantText := strings.Join(slicesWithout(strings.SplitAfter(string(want), "\n"), `GET "text/html" "wrong"`), "")
	if got.String() != wantText {
		t.Fatalf("/ answers API clients\n%s\nbefore the page it answered\n%s", got.String(), wantText)
	}
	if text, _, _ := answer(t, "GET", srv.URL()+"/api/inboxes", browserAccept, ""); !strings.Contains(text, "-> 401") {
		t.Fatalf("a browser's request for another path: %s; want the API's 401", text)
	}
}

// slicesWithout drops the answer starting with the line prefix (its
// status line and the indented lines after it).
func slicesWithout(lines []string, prefix string) []string {
	var out []string
	skipping := false
	for _, l := range lines {
		if !strings.HasPrefix(l, "  ") {
			skipping = strings.HasPrefix(l, prefix)
		}
		if !skipping {
			out = append(out, l)
		}
	}
	return out
}

// TestRootShowsABrowserWhatThisIs: a browser's GET / gets a page (200,
// text/html, nothing loaded from anywhere) naming the version, the SMTP
// address, the TUI and API commands with the key's header, and SSH on or
// off with how to switch it on; every value is escaped; HEAD gets the
// headers alone.
func TestRootShowsABrowserWhatThisIs(t *testing.T) {
	srv := servertest.Start(t)
	_, resp, body := answer(t, "GET", srv.URL()+"/", browserAccept, "")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("a browser's GET /: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Security-Policy"))
	}
	for _, want := range []string{
		"receive-only email sandbox", "<pre>" + srv.SMTPAddr() + "</pre>", "sandview --url " + srv.URL() + " --api-key KEY",
		"curl -H 'X-API-Key: KEY' " + srv.URL() + "/api/server-info", "SSH is off", "sandview serve --ssh HOST:PORT",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}

	hostile := servertest.Start(t, func(c *server.Config) {
		c.Welcome = func(httpAddr, smtpAddr string) httpapi.Welcome {
			return httpapi.Welcome{Version: "v1.2.3<script>alert(1)</script>", URL: "http://" + httpAddr,
				SMTP: smtpAddr + `"><img src=x>`, SSH: "-p 2222 box.example<b>"}
		}
	})
	_, resp, body = answer(t, "GET", hostile.URL()+"/", "text/html", "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, bad := range []string{"<script>alert", "<img src=x>", "box.example<b>"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page holds %q unescaped:\n%s", bad, body)
		}
	}
	for _, want := range []string{"sandview v1.2.3&lt;script&gt;", "ssh -t -p 2222 box.example&lt;b&gt;", "ssh -p 2222 box.example&lt;b&gt; help"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "SSH is off") {
		t.Error("the page says SSH is off while the box runs")
	}

	_, resp, body = answer(t, "HEAD", srv.URL()+"/", browserAccept, "")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || body != "" {
		t.Fatalf("HEAD /: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}
