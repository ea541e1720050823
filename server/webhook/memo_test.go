package webhook

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"sandview/model"
)

// TestMemoRemembersEvictsAndForgets: the memo gives back what was put,
// replaces an email's entry, evicts the oldest email first, and forgets by
// email and by inbox (case-insensitively).
func TestMemoRemembersEvictsAndForgets(t *testing.T) {
	m := newEmailMemo(3)
	entry := func(inbox, subject string) memoEntry {
		return memoEntry{inbox: inbox, summary: emailSummary{From: "Dana <d@x.test>", To: "a@x.test, b@x.test", Subject: subject, Preview: "pré"},
			passed: map[string]bool{"wh_1": true, "wh_2": false}}
	}
	m.put("e1", entry("qa@sandbox.test", "one"))
	m.put("e2", entry("other@sandbox.test", ""))
	m.put("e1", entry("qa@sandbox.test", "one again")) // replaces, takes no new slot
	got, ok := m.get("e1")
	want := entry("qa@sandbox.test", "one again")
	if !ok || got.inbox != want.inbox || got.summary != want.summary || len(got.passed) != 2 || !got.passed["wh_1"] || got.passed["wh_2"] {
		t.Fatalf("get e1 = %+v, %v; want %+v", got, ok, want)
	}
	m.put("e3", entry("qa@sandbox.test", "three"))
	m.put("e4", entry("qa@sandbox.test", "four")) // evicts e1, the oldest
	if _, ok := m.get("e1"); ok {
		t.Error("e1 not evicted")
	}
	if got, ok := m.get("e2"); !ok || got.summary.Subject != "" || got.inbox != "other@sandbox.test" {
		t.Errorf("e2 = %+v, %v", got, ok)
	}
	m.forget("e3")
	if _, ok := m.get("e3"); ok {
		t.Error("e3 not forgotten")
	}
	m.forgetInbox("QA@Sandbox.test")
	if _, ok := m.get("e4"); ok {
		t.Error("e4 not forgotten with its inbox")
	}
	if _, ok := m.get("e2"); !ok {
		t.Error("e2 of another inbox forgotten")
	}
	if _, ok := m.get("never"); ok {
		t.Error("unknown email remembered")
	}
}

// TestLateWebhookGetsTheSummaryOfEarlierMail: an email that arrived while
// no webhook existed is still remembered, so a webhook created afterwards
// shows its subject in the email.deleted it receives.
func TestLateWebhookGetsTheSummaryOfEarlierMail(t *testing.T) {
	h := newHarness(t, testConfig())
	s := newSink(t, http.StatusOK)
	for i := range 3 {
		id := fmt.Sprintf("early%d", i)
		h.engine.Handle(received(id, plainMail(id, "Subject of "+id)))
		h.engine.Handle(stored(id))
	}
	eventually(t, "the early mail dispatched", func() bool {
		h.engine.mu.Lock()
		defer h.engine.mu.Unlock()
		_, ok := h.engine.memo.get("early2")
		return ok
	})
	h.create("/api/webhooks", model.CreateWebhookRequest{URL: s.URL, Events: []string{model.EventEmailDeleted},
		Template: &model.WebhookTemplate{Type: model.TemplateSimple}})
	h.engine.Handle(deleted("early1", model.DeleteReasonManual))
	var body map[string]any
	if err := json.Unmarshal(s.next(t).Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["subject"] != "Subject of early1" {
		t.Errorf("late webhook's email.deleted: %v", body)
	}
}
