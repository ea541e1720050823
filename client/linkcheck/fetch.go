package linkcheck

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Fetch GETs link (redirects followed) under the checker's address rule,
// for content the user allowed to load (a rendered mail's remote images,
// style sheets and fonts), and returns its body, at most limit bytes, and
// its content type. A status other than 2xx, a body over limit or a
// refused destination is an error.
func (c *Checker) Fetch(ctx context.Context, link string, limit int64) ([]byte, string, error) {
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", fmt.Errorf("fetch %q: not an http(s) address", link)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	if err := c.rule.CheckURL(ctx, link, nil); err != nil {
		return nil, "", fmt.Errorf("fetch %s: %w", link, err)
	}
	resp, err := c.request(ctx, http.MethodGet, link, func(Hop) {})
	if err != nil {
		return nil, "", fmt.Errorf("fetch %s: %w", link, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return nil, "", fmt.Errorf("fetch %s: status %d", link, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("fetch %s: %w", link, err)
	}
	if int64(len(body)) > limit {
		return nil, "", fmt.Errorf("fetch %s: larger than %d bytes", link, limit)
	}
	return body, resp.Header.Get("Content-Type"), nil
}
