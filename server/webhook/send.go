package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"sandview/crypto"
	"sandview/internal/netguard"
)

// sendResult is the outcome of one HTTP attempt.
type sendResult struct {
	status  int
	body    string // the first 1 KB of the answer
	err     error
	elapsed time.Duration
}

// ok reports success: a 2xx answer within the timeout.
func (r sendResult) ok() bool { return r.err == nil && r.status >= 200 && r.status < 300 }

// errText explains a failed attempt to whoever made the webhook: "delivery
// failed" with the HTTP status when there was one, never connection details
// (refused, resolver, TLS), which would make the test operation a network
// scanner. The log has the details (r.err).
func (r sendResult) errText() string {
	switch {
	case r.ok():
		return ""
	case r.status != 0 && (r.status < 200 || r.status > 299):
		return fmt.Sprintf("delivery failed: endpoint answered %d %s", r.status, http.StatusText(r.status))
	case errors.Is(r.err, errNoAnswer):
		return "delivery failed: " + r.err.Error()
	case errors.Is(r.err, netguard.ErrForbidden):
		return "delivery failed: the destination is a loopback, private, link-local or metadata address, which this server does not deliver to"
	}
	return "delivery failed"
}

// errNoAnswer is an attempt that ran out of time.
var errNoAnswer = errors.New("no answer")

// send makes one signed POST of body to url, bounded by Config.Timeout.
// secrets are the webhook's valid secrets (record.validSecrets): the
// current one signs X-<Word>-Signature; during the rotation grace the
// previous one also signs X-<Word>-Signature-Previous, for receivers that
// still hold it.
func (e *Engine) send(ctx context.Context, url string, secrets []string, eventType, deliveryID string, body []byte, contentType string) sendResult {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return sendResult{err: fmt.Errorf("build request: %w", err)}
	}
	ts := strconv.FormatInt(e.cfg.Now().Unix(), 10)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", e.wire.userAgent)
	req.Header.Set(e.wire.header("Signature"), crypto.SignWebhook(secrets[0], ts, body))
	if len(secrets) > 1 {
		req.Header.Set(e.wire.header("Signature-Previous"), crypto.SignWebhook(secrets[1], ts, body))
	}
	req.Header.Set(e.wire.header("Event"), eventType)
	req.Header.Set(e.wire.header("Delivery"), deliveryID)
	req.Header.Set(e.wire.header("Timestamp"), ts)
	started := time.Now()
	resp, err := e.cfg.HTTPClient.Do(req)
	if err != nil {
		return sendResult{err: describeSendError(ctx, err, e.cfg.Timeout), elapsed: time.Since(started)}
	}
	defer resp.Body.Close()
	head, err := io.ReadAll(io.LimitReader(resp.Body, testResponseBodyLimit))
	if err == nil {
		// Read a bounded rest so that the connection can be reused.
		_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, drainedResponseBodyMax))
	}
	res := sendResult{status: resp.StatusCode, body: strings.ToValidUTF8(string(head), "\uFFFD"), elapsed: time.Since(started)}
	if err != nil && ctx.Err() != nil {
		res.err = describeSendError(ctx, err, e.cfg.Timeout)
	}
	return res
}

func describeSendError(ctx context.Context, err error, timeout time.Duration) error {
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("%w within %v", errNoAnswer, timeout)
	}
	return fmt.Errorf("request failed: %w", err)
}
