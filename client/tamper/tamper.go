// Package tamper is test support: a reverse proxy in front of a real
// sandview server that rewrites its answers as a hostile proxy (or server)
// on an http:// URL would. It rewrites every email record, raw answer and
// event-stream notification that passes through it, so that tests can
// check the client's no-downgrade rule end to end (client, CLI, TUI).
package tamper

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Mode is how the proxy rewrites what it passes on.
type Mode int

// Rewrite modes.
const (
	// Off passes every answer through unchanged.
	Off Mode = iota
	// Downgrade strips the encrypted fields (encryptedMetadata,
	// encryptedParsed, encryptedRaw) and puts forged plain ones in their
	// place.
	Downgrade
	// PlainAlongside keeps the encrypted fields and adds forged plain ones.
	PlainAlongside
	// Upgrade strips the plain fields (metadata, parsed, raw) and puts an
	// encrypted-looking payload in their place (for a plain inbox).
	Upgrade
)

// What the forged plain fields say.
const (
	ForgedFrom    = "ceo@bank.example"
	ForgedSubject = "FORGED wire the money"
	ForgedText    = "forged body: wire the money today"
)

// Proxy is a tampering reverse proxy; URL is its address.
type Proxy struct {
	*httptest.Server
	rp *httputil.ReverseProxy

	mu        sync.Mutex
	mode      Mode
	rewritten int
}

// Start starts a proxy in front of the server at target (a base URL) in
// mode Off, and stops it when t ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("tamper: target %q: %v", target, err)
	}
	p := &Proxy{}
	transport := &http.Transport{}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Header.Del("Accept-Encoding")
		},
		Transport:      transport,
		FlushInterval:  -1,
		ErrorLog:       log.New(io.Discard, "", 0),
		ModifyResponse: p.modify,
	}
	p.Server = httptest.NewServer(p.rp)
	t.Cleanup(func() {
		p.Server.CloseClientConnections()
		p.Server.Close()
		transport.CloseIdleConnections()
	})
	return p
}

// SetMode changes how later answers are rewritten.
func (p *Proxy) SetMode(m Mode) {
	p.mu.Lock()
	p.mode = m
	p.mu.Unlock()
}

// Rewritten returns how many records, raw answers and notifications were
// rewritten so far.
func (p *Proxy) Rewritten() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rewritten
}

func (p *Proxy) currentMode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

func (p *Proxy) count() {
	p.mu.Lock()
	p.rewritten++
	p.mu.Unlock()
}

// modify rewrites a JSON answer whole and an event stream line by line.
func (p *Proxy) modify(resp *http.Response) error {
	mode := p.currentMode()
	if mode == Off {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		body = p.rewriteJSON(body, mode)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	case "text/event-stream":
		resp.Body = p.rewriteStream(resp.Body, mode)
	}
	return nil
}

// rewriteStream rewrites each `data:` line of an event stream.
func (p *Proxy) rewriteStream(body io.ReadCloser, mode Mode) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		defer body.Close()
		r := bufio.NewReader(body)
		for {
			line, err := r.ReadString('\n')
			if data, ok := strings.CutPrefix(line, "data:"); ok {
				line = "data: " + string(p.rewriteJSON([]byte(strings.TrimSpace(data)), mode)) + "\n"
			}
			if line != "" {
				if _, werr := io.WriteString(pw, line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// rewriteJSON rewrites the records of a JSON document (an object or a list
// of them); anything else is returned unchanged.
func (p *Proxy) rewriteJSON(body []byte, mode Mode) []byte {
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return body
	}
	changed := false
	switch v := doc.(type) {
	case map[string]any:
		changed = p.rewriteRecord(v, mode)
	case []any:
		for _, el := range v {
			if obj, ok := el.(map[string]any); ok && p.rewriteRecord(obj, mode) {
				changed = true
			}
		}
	}
	if !changed {
		return body
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return body
	}
	return out
}

// parts pairs each encrypted field with its plain counterpart.
var parts = [][2]string{{"encryptedMetadata", "metadata"}, {"encryptedParsed", "parsed"}, {"encryptedRaw", "raw"}}

// rewriteRecord rewrites one record in place and reports whether it did.
func (p *Proxy) rewriteRecord(obj map[string]any, mode Mode) bool {
	id, _ := obj["id"].(string)
	if id == "" {
		id, _ = obj["emailId"].(string)
	}
	changed := false
	for _, part := range parts {
		enc, plain := part[0], part[1]
		_, hasEnc := obj[enc]
		_, hasPlain := obj[plain]
		switch {
		case mode == Downgrade && hasEnc:
			delete(obj, enc)
			obj[plain] = forged(plain, id)
		case mode == PlainAlongside && hasEnc:
			obj[plain] = forged(plain, id)
		case mode == Upgrade && hasPlain:
			delete(obj, plain)
			obj[enc] = fakePayload()
		default:
			continue
		}
		changed = true
	}
	if changed {
		p.count()
	}
	return changed
}

// forged returns the base64 of a forged plain part: metadata, parsed
// content claiming every authentication check passed, or a raw message.
func forged(part, id string) string {
	var b []byte
	switch part {
	case "metadata":
		b, _ = json.Marshal(map[string]any{"id": id, "from": ForgedFrom, "to": []string{"victim@sandbox.test"},
			"subject": ForgedSubject, "receivedAt": "2026-01-01T00:00:00.000Z"})
	case "parsed":
		b, _ = json.Marshal(map[string]any{"text": ForgedText, "html": "<p>" + ForgedText + "</p>", "headers": map[string]string{},
			"attachments": []any{}, "links": []string{},
			"authResults": map[string]any{"spf": map[string]string{"result": "pass"}, "dkim": []map[string]string{{"result": "pass"}},
				"dmarc": map[string]string{"result": "pass"}}})
	default:
		b = []byte("From: " + ForgedFrom + "\r\nSubject: " + ForgedSubject + "\r\n\r\n" + ForgedText + "\r\n")
	}
	return base64.StdEncoding.EncodeToString(b)
}

// fakePayload is an encrypted-looking payload (it opens with no key).
func fakePayload() map[string]any {
	zero := base64.RawURLEncoding.EncodeToString(make([]byte, 12))
	return map[string]any{"v": 1, "algs": map[string]string{"kem": "ML-KEM-768", "sig": "ML-DSA-65", "aead": "AES-256-GCM", "kdf": "HKDF-SHA-512"},
		"ct_kem": zero, "nonce": zero, "aad": zero, "ciphertext": zero, "sig": zero, "server_sig_pk": zero}
}
