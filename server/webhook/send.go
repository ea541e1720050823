package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"sandview/crypto"
)

// sendResult is the outcome of one HTTP attempt.
type sendResult struct {
	status  int
	err     error
	elapsed time.Duration
}

// ok reports success: a 2xx answer within the timeout.
func (r sendResult) ok() bool { return r.err == nil && r.status >= 200 && r.status < 300 }

// errText explains a failed attempt to whoever made the webhook: "delivery
// failed", with the HTTP status when the endpoint answered one, and
// nothing else: no connection detail (refused, timeout, resolver, TLS, a
// forbidden destination) and no answer body, which would make the test
// operation a network scanner or a reader of internal services. The log
// has the details (r.err).
func (r sendResult) errText() string {
	switch {
	case r.ok():
		return ""
	case r.answered() && (r.status < 200 || r.status > 299):
		return fmt.Sprintf("delivery failed: endpoint answered %d %s", r.status, http.StatusText(r.status))
	}
	return "delivery failed"
}

// answered reports whether the endpoint answered with an HTTP status.
func (r sendResult) answered() bool { return r.status != 0 }

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
	// Read a bounded body, never kept, so that the connection can be reused.
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, drainedResponseBodyMax))
	res := sendResult{status: resp.StatusCode, elapsed: time.Since(started)}
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
