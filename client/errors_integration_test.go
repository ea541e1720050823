package client_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"sandview/client"
	"sandview/internal/clienttest"
	"sandview/model"
)

// A 4xx the server explains is a *RefusedError carrying its reason; a 409
// on creating an inbox is its child *AddressTakenError; both unwrap to the
// *APIError with the status; a refused webhook is an *InvalidWebhookError
// naming the fields at fault. A 404 with no route class stays an
// *APIError and is no refusal.
func TestIntegrationRefusedErrors(t *testing.T) {
	_, c := startServer(t)
	ctx := clienttest.Ctx(t)
	addr := "taken@" + domainOf(t, c)
	if _, err := c.CreateInbox(ctx, client.CreateInboxOptions{EmailAddress: addr}); err != nil {
		t.Fatal(err)
	}
	_, err := c.CreateInbox(ctx, client.CreateInboxOptions{EmailAddress: addr})
	var taken *client.AddressTakenError
	var invalid *client.InvalidWebhookError
	var refused *client.RefusedError
	var status *client.APIError
	if !errors.As(err, &taken) || taken.Address != addr {
		t.Fatalf("second create of %s: %v (%T), want *AddressTakenError", addr, err, errors.Unwrap(err))
	}
	if !errors.As(err, &refused) || !errors.As(err, &status) || status.StatusCode != http.StatusConflict {
		t.Fatalf("address taken: parent *RefusedError %v, status %v", refused, status)
	}

	_, err = c.Webhooks.CreateWebhook(ctx, "", model.CreateWebhookRequest{URL: "not a url", Events: []string{model.EventEmailReceived}})
	refused = nil
	if !errors.As(err, &refused) || refused.Reason == "" || !strings.Contains(err.Error(), refused.Reason) {
		t.Fatalf("webhook with a bad url: %v, want *RefusedError with the reason", err)
	}
	if errors.As(err, &taken) {
		t.Fatalf("a refused webhook reads as a taken address: %v", err)
	}
	invalid = nil
	if _, err := c.CreateInbox(ctx, client.CreateInboxOptions{EmailAddress: "x@elsewhere.invalid"}); errors.As(err, &invalid) || !errors.As(err, &refused) {
		t.Fatalf("an inbox refused: %v, want a *RefusedError that is no *InvalidWebhookError", err)
	}
	if !errors.As(err, &status) || status.StatusCode < 400 || status.StatusCode >= 500 {
		t.Fatalf("refused webhook: status %v", status)
	}

	if !errors.As(err, &invalid) || len(invalid.Problems) != 1 || invalid.Problems[0].Field != "url" {
		t.Fatalf("webhook with a bad url: %v, want *InvalidWebhookError about the url", err)
	}
	// A documentation address (RFC 5737): a public URL that needs no DNS
	// lookup (tests ask no resolver beyond loopback), refused before any
	// connection.
	_, err = c.Webhooks.CreateWebhook(ctx, "", model.CreateWebhookRequest{
		URL: "https://198.51.100.10/x", Events: []string{model.EventEmailReceived},
		Filter: &model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "subject", Operator: model.OpRegex, Value: "("}}},
	})
	if !errors.As(err, &invalid) || len(invalid.Problems) != 1 || invalid.Problems[0].Field != "filter.rules[0].value" ||
		!strings.Contains(invalid.Problems[0].Text, "regular expression") {
		t.Fatalf("webhook with a bad rule: %v, want *InvalidWebhookError about filter.rules[0].value", err)
	}

	_, err = c.Webhooks.GetWebhook(ctx, "", "whk_missing")
	refused = nil
	if errors.As(err, &refused) || !errors.As(err, &status) || status.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown webhook: %v, want a 404 *APIError and no refusal", err)
	}
}

// domainOf is the first domain the server allows.
func domainOf(t *testing.T, c *client.Client) string {
	t.Helper()
	info, err := c.ServerInfo(clienttest.Ctx(t))
	if err != nil || len(info.AllowedDomains) == 0 {
		t.Fatalf("server info %+v: %v", info, err)
	}
	return info.AllowedDomains[0]
}

// The calls of a zero WebhooksService (no client) fail with ErrNoService,
// which every *NoServiceError matches.
func TestNoServiceError(t *testing.T) {
	var none client.WebhooksService
	_, err := none.ListWebhooks(context.Background(), "")
	var typed *client.NoServiceError
	if !errors.Is(err, client.ErrNoService) || !errors.As(err, &typed) || !strings.Contains(err.Error(), "no service connected") {
		t.Fatalf("zero WebhooksService: %v, want ErrNoService", err)
	}
	if !errors.Is(&client.NoServiceError{}, client.ErrNoService) || errors.Is(client.ErrClientClosed, client.ErrNoService) {
		t.Fatal("NoServiceError matches wrongly")
	}
}
