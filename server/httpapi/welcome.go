package httpapi

import (
	"bytes"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
)

// APIKeyHeader is the header every API request carries its key in
// (http-interface.md).
const APIKeyHeader = "X-API-Key"

// Welcome is what the page at / tells a browser about this server.
type Welcome struct {
	// Version is sandview's version.
	Version string
	// URL is the HTTP API's base address as teammates reach it
	// (http://HOST:PORT), SMTP the SMTP listener's (HOST:PORT).
	URL, SMTP string
	// SSH is the ssh destination of the SSH box ("-p PORT HOST"), "" when
	// the box is off.
	SSH string
}

// welcomeView is a Welcome as the template shows it.
type welcomeView struct {
	Welcome
	Header string
}

// welcomePage is the page for a browser. html/template escapes every
// value, each in its context.
var welcomePage = template.Must(template.New("welcome").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sandview {{.Version}}: an email sandbox</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1f2937; }
code, pre { font: 14px/1.4 ui-monospace, monospace; background: #f3f4f6; border-radius: 4px; }
code { padding: 0 .25rem; }
pre { padding: .6rem .8rem; overflow-x: auto; }
h2 { margin-top: 1.8rem; font-size: 1.15rem; }
</style>
</head>
<body>
<h1>sandview {{.Version}}</h1>
<p>This is a <b>sandview</b> server: a receive-only email sandbox. Mail that
apps send to its SMTP port is kept in inboxes for tests and people to read;
nothing is ever delivered onwards. There is nothing to see in a browser:
read the mail with one of the ways in below.</p>

<h2>Send mail to it (SMTP)</h2>
<pre>{{.SMTP}}</pre>
<p>Plain SMTP; AUTH PLAIN and LOGIN are offered. From a shell:
<code>sandview send --smtp {{.SMTP}} --to qa@sandbox.test</code>, or pipe a
message to <code>sandview sendmail</code> (PHP's <code>mail()</code>).</p>

<h2>Read it in the terminal (TUI)</h2>
<pre>sandview --url {{.URL}} --api-key KEY</pre>
<p>Or save both once with <code>sandview config --url {{.URL}} --api-key KEY</code>,
then run <code>sandview</code>. The key is the server's API key (its operator has it).</p>

<h2>Over SSH</h2>
{{if .SSH}}<pre>ssh -t {{.SSH}}</pre>
<p>opens the inbox viewer for a key the server's operator added;
<code>ssh {{.SSH}} help</code> lists the commands.</p>
{{else}}<p>SSH is off on this server. Its operator switches it on with
<code>sandview serve --ssh HOST:PORT</code> (and the teammates' public keys in
<code>--ssh-authorized-keys</code>).</p>
{{end}}
<h2>The HTTP API</h2>
<p>Every request carries the API key in the <code>{{.Header}}</code> header:</p>
<pre>curl -H '{{.Header}}: KEY' {{.URL}}/api/server-info</pre>

<h2>Documentation</h2>
<p><code>sandview --help</code>, <code>sandview help COMMAND</code>, and the guides
in the source's <code>docs/</code>: pointing an app at it (apps.md), CI (ci.md),
the shared box over SSH (ssh-box.md).</p>
</body>
</html>
`))

// wantsHTML reports a request a browser made for a page: GET or HEAD with
// an Accept that names text/html.
func wantsHTML(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	for _, accept := range r.Header.Values("Accept") {
		if strings.Contains(strings.ToLower(accept), "text/html") {
			return true
		}
	}
	return false
}

// rootHandler answers / : the page of welcome for a browser, api (as
// every other path) for everyone else, so an API client's answers stay as
// they were.
func rootHandler(welcome func() Welcome, log *slog.Logger, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !wantsHTML(r) || welcome == nil {
			api.ServeHTTP(w, r)
			return
		}
		var page bytes.Buffer
		if err := welcomePage.Execute(&page, welcomeView{Welcome: welcome(), Header: APIKeyHeader}); err != nil {
			log.Error("render the page at /", "error", err)
			WriteError(w, http.StatusInternalServerError, "the page could not be rendered")
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Vary", "Accept")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(page.Bytes())
		}
	})
}
