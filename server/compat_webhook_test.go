package server_test

import (
	"net/http"
	"testing"

	"sandview/model"
	"sandview/server"
)

// TestWebhookRoutesByProfile: the status codes and answer shapes of the
// webhook routes where the contract and the reference deployment differ.
func TestWebhookRoutesByProfile(t *testing.T) {
	inEveryProfile(t, func(t *testing.T, p server.Compat, _ *server.Server, a *api, in model.Inbox) {
		ref := p == server.CompatReference
		action, invalid, deleteUnknown := http.StatusOK, http.StatusUnprocessableEntity, http.StatusNotFound
		if ref {
			action, invalid, deleteUnknown = http.StatusCreated, http.StatusBadRequest, http.StatusNoContent
		}
		recv := listen(t)

		for _, base := range []string{"/api/webhooks", "/api/inboxes/" + in.EmailAddress + "/webhooks"} {
			var hook model.Webhook
			a.Expect(http.StatusCreated, "POST", base, model.CreateWebhookRequest{URL: recv.URL(), Events: []string{model.EventEmailReceived}}, &hook)
			if hook.Secret == "" || (hook.Stats != nil) != ref {
				t.Errorf("%s create: secret %q, stats %+v (want stats: %t)", base, hook.Secret, hook.Stats, ref)
			}
			path := base + "/" + hook.ID
			var got model.Webhook
			a.Expect(http.StatusOK, "GET", path, nil, &got)
			if got.Secret != hook.Secret || got.Stats == nil {
				t.Errorf("%s get: secret %q, stats %+v; want both", base, got.Secret, got.Stats)
			}
			var patched model.Webhook
			a.Expect(http.StatusOK, "PATCH", path, map[string]any{"description": "patched"}, &patched)
			if patched.Description != "patched" || (patched.Secret == hook.Secret) != ref || (patched.Stats != nil) != ref {
				t.Errorf("%s update: %+v (want secret and stats: %t)", base, patched, ref)
			}
			var list model.WebhookList
			a.Expect(http.StatusOK, "GET", base, nil, &list)
			if list.Total != 1 || list.Webhooks[0].Secret != "" || list.Webhooks[0].Stats != nil {
				t.Errorf("%s list: %+v, want one webhook without secret and stats", base, list)
			}

			var tested model.TestWebhookResponse
			a.Expect(action, "POST", path+"/test", nil, &tested)
			if !tested.Success || tested.StatusCode != http.StatusOK || len(tested.PayloadSent) == 0 {
				t.Errorf("%s test: %+v", base, tested)
			}
			nextDelivery(t, recv)
			var rotated model.RotateSecretResponse
			a.Expect(action, "POST", path+"/rotate-secret", nil, &rotated)
			if rotated.ID != hook.ID || rotated.Secret == hook.Secret || rotated.PreviousSecretValidUntil.IsZero() {
				t.Errorf("%s rotate: %+v", base, rotated)
			}

			badRegex := map[string]any{"mode": "all", "rules": []any{map[string]any{"field": "subject", "operator": "regex", "value": "(["}}}
			create := func(extra map[string]any) map[string]any {
				return with(map[string]any{"url": recv.URL(), "events": []string{model.EventEmailReceived}}, extra)
			}
			a.ExpectError(invalid, "POST", base, create(map[string]any{"filter": badRegex}), "not a valid regular expression")
			a.ExpectError(invalid, "POST", base, create(map[string]any{"template": "markdown"}), "unknown template")
			a.ExpectError(invalid, "POST", base, create(map[string]any{"template": map[string]any{"type": "custom", "body": "{{data.subject}"}}), "template.body")
			a.ExpectError(invalid, "PATCH", path, map[string]any{"filter": badRegex}, "not a valid regular expression")
			// Malformed filters are 400 in both.
			a.ExpectError(http.StatusBadRequest, "POST", base, create(map[string]any{"filter": map[string]any{"mode": "most", "rules": []any{}}}), "filter.mode")

			a.Expect(http.StatusNoContent, "DELETE", path, nil, nil)
			if ref {
				a.Expect(deleteUnknown, "DELETE", path, nil, nil)
			} else {
				a.ExpectError(deleteUnknown, "DELETE", path, nil, hook.ID)
			}
			a.ExpectError(http.StatusNotFound, "GET", path, nil, hook.ID)
		}
		unknownInbox := "/api/inboxes/nobody@sandbox.test/webhooks/whk_missing"
		if ref {
			a.Expect(deleteUnknown, "DELETE", unknownInbox, nil, nil)
		} else {
			a.ExpectError(deleteUnknown, "DELETE", unknownInbox, nil, "nobody@sandbox.test")
		}
		a.ExpectError(http.StatusNotFound, "GET", unknownInbox, nil, "nobody@sandbox.test")
	})
}
