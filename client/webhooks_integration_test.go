package client_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"sandview/client"
	"sandview/internal/clienttest"
	"sandview/model"
	"sandview/server"
	"sandview/server/webhook"
)

// TestIntegrationWebhooks drives every global and inbox webhook endpoint of
// the embedded server; the test delivery goes to a local receiver.
func TestIntegrationWebhooks(t *testing.T) {
	received := make(chan string, 4)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		received <- string(body)
	}))
	defer receiver.Close()

	_, c := startServer(t, func(cfg *server.Config) {
		wcfg := webhook.DefaultConfig()
		wcfg.AllowLoopbackHTTP = true
		cfg.Webhooks = &wcfg
	})
	ctx := clienttest.Ctx(t)

	templates, err := c.Webhooks.WebhookTemplates(ctx)
	if err != nil || len(templates.Templates) != 7 || templates.Templates[0].Value != model.TemplateDefault {
		t.Fatalf("templates %+v %v", templates, err)
	}

	hook, err := c.Webhooks.CreateWebhook(ctx, "", model.CreateWebhookRequest{
		URL: receiver.URL + "/hook", Events: []string{model.EventEmailReceived}, Description: "global",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hook.ID, "whk_") || !strings.HasPrefix(hook.Secret, "whsec_") || hook.Scope != model.ScopeGlobal || !hook.Enabled {
		t.Fatalf("created %+v", hook)
	}
	list, err := c.Webhooks.ListWebhooks(ctx, "")
	if err != nil || list.Total != 1 || len(list.Webhooks) != 1 || list.Webhooks[0].Secret != "" {
		t.Fatalf("list %+v %v", list, err)
	}
	got, err := c.Webhooks.GetWebhook(ctx, "", hook.ID)
	if err != nil || got.Secret != hook.Secret || got.Stats == nil {
		t.Fatalf("get %+v %v", got, err)
	}
	desc, off := "changed", false
	updated, err := c.Webhooks.UpdateWebhook(ctx, "", hook.ID, model.UpdateWebhookRequest{Description: &desc, Enabled: &off})
	if err != nil || updated.Description != "changed" || updated.Enabled {
		t.Fatalf("update %+v %v", updated, err)
	}
	on := true
	if _, err := c.Webhooks.UpdateWebhook(ctx, "", hook.ID, model.UpdateWebhookRequest{Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Webhooks.TestWebhook(ctx, "", hook.ID)
	if err != nil || !res.Success {
		t.Fatalf("test delivery %+v %v", res, err)
	}
	if body := <-received; body == "" {
		t.Fatal("test delivery carried no body")
	}
	rotated, err := c.Webhooks.RotateWebhookSecret(ctx, "", hook.ID)
	if err != nil || rotated.Secret == hook.Secret || !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.PreviousSecretValidUntil.IsZero() {
		t.Fatalf("rotate %+v %v", rotated, err)
	}

	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inboxHook, err := c.Webhooks.CreateWebhook(ctx, in.Address(), model.CreateWebhookRequest{
		URL: receiver.URL + "/inbox", Events: []string{model.EventEmailReceived, model.EventEmailDeleted},
	})
	if err != nil || inboxHook.Scope != model.ScopeInbox || !strings.EqualFold(inboxHook.InboxEmail, in.Address()) {
		t.Fatalf("inbox webhook %+v %v", inboxHook, err)
	}
	inboxList, err := c.Webhooks.ListWebhooks(ctx, in.Address())
	if err != nil || inboxList.Total != 1 || inboxList.Webhooks[0].ID != inboxHook.ID {
		t.Fatalf("inbox list %+v %v", inboxList, err)
	}
	metrics, err := c.Webhooks.WebhookMetrics(ctx)
	if err != nil || metrics.Webhooks.Global != 1 || metrics.Webhooks.Inbox != 1 || metrics.Webhooks.Total != 2 {
		t.Fatalf("metrics %+v %v", metrics, err)
	}

	var notFound *client.InboxNotFoundError
	if _, err := c.Webhooks.ListWebhooks(ctx, "nobody@sandbox.test"); !errors.As(err, &notFound) {
		t.Fatalf("webhooks of an unknown inbox: %v", err)
	}
	if err := c.Webhooks.DeleteWebhook(ctx, in.Address(), inboxHook.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.Webhooks.DeleteWebhook(ctx, "", hook.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Webhooks.GetWebhook(ctx, "", hook.ID); !isStatus(err, http.StatusNotFound) {
		t.Fatalf("deleted webhook: %v", err)
	}
}
