package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"sandview/model"
)

// SendTestEmail asks the server to create an email with chosen
// authentication results (POST /api/test/emails; the server needs
// SVC_SDK_DEVELOPMENT=true) and returns its id. The contract's form is
// sent first; when the server rejects it with 400 and auth results were
// chosen, the deployments' nested form is tried.
func (c *Client) SendTestEmail(ctx context.Context, req model.TestEmailRequest) (string, error) {
	id, err := c.postTestEmail(ctx, req.To, req)
	var status *APIError
	if err == nil || !errors.As(err, &status) || status.StatusCode != http.StatusBadRequest || !hasAuthChoice(req) {
		return id, err
	}
	return c.postTestEmail(ctx, req.To, nestedTestEmail(req))
}

func (c *Client) postTestEmail(ctx context.Context, to string, body any) (string, error) {
	var res model.TestEmailResponse
	err := c.do(ctx, request{
		method: http.MethodPost,
		path:   "/api/test/emails",
		body:   body,
		out:    &res,
		notFound: func(status *APIError) error {
			if mentionsInbox(status) {
				return &InboxNotFoundError{Address: to, status: status}
			}
			status.Message = "the test-email endpoint is not enabled on the server (it needs SVC_SDK_DEVELOPMENT=true)"
			return status
		},
	})
	if err != nil {
		return "", fmt.Errorf("send test email to %s: %w", to, err)
	}
	return res.EmailID, nil
}

// hasAuthChoice reports whether the request sets any auth result, the only
// part that differs between the two request forms.
func hasAuthChoice(req model.TestEmailRequest) bool {
	return req.SPF != "" || req.DKIM != "" || req.DMARC != "" || req.ReverseDNS != nil
}

// nestedTestEmail converts the contract's form into the deployments' form.
func nestedTestEmail(req model.TestEmailRequest) model.NestedTestEmailRequest {
	auth := &model.TestEmailAuth{SPF: req.SPF, DKIM: req.DKIM, DMARC: req.DMARC}
	if req.ReverseDNS != nil {
		auth.ReverseDNS = model.ResultFail
		if *req.ReverseDNS {
			auth.ReverseDNS = model.ResultPass
		}
	}
	return model.NestedTestEmailRequest{
		To: req.To, From: req.From, Subject: req.Subject, Text: req.Text, HTML: req.HTML, Auth: auth,
	}
}
