package client

import (
	"errors"
	"strings"
	"testing"
)

// The service's validation messages name the field of the webhook request
// they are about by its path at their start, or in other words for
// unknown events and templates; a message naming none names no field.
func TestWebhookProblemFields(t *testing.T) {
	cases := map[string]string{
		"url must use https (http is allowed only for loopback hosts on this server)": "url",
		"URL is not a valid URL":                                             "URL",
		`url "x" has no host`:                                                "url",
		"events must list at least one of email.received":                    "events",
		`unknown event "x": use email.received`:                              "events",
		"template.body does not render to valid JSON with a sample event":    "template.body",
		`unknown template "x": use one of default`:                           "template",
		"filter.mode must be all or any":                                     "filter.mode",
		"filter.rules[1].value is not a valid regular expression: missing )": "filter.rules[1].value",
		"filter.rules[0].field must be one of the filterable fields":         "filter.rules[0].field",
		"description is longer than 500 characters":                          "description",
		"webhook limit reached":                                              "",
		"urlencoded bodies are not accepted":                                 "",
	}
	for text, want := range cases {
		if got := webhookFieldOf(text); got != want {
			t.Errorf("%q: field %q, want %q", text, got, want)
		}
	}
	got := webhookProblems("url is required; events must list at least one;  ")
	if len(got) != 2 || got[0] != (Problem{Field: "url", Text: "url is required"}) || got[1].Field != "events" {
		t.Fatalf("problems of a joined reason: %+v", got)
	}
}

// An error built without an answer (a test's fake) still has its parent
// class, *RefusedError, with the reason.
func TestRefusedChildrenWithoutAnAnswer(t *testing.T) {
	var refused *RefusedError
	invalid := &InvalidWebhookError{Problems: []Problem{{Field: "url", Text: "url is required"}, {Text: "webhook limit reached"}}}
	if !errors.As(invalid, &refused) || refused.Reason != "url is required; webhook limit reached" {
		t.Fatalf("invalid webhook: parent %+v", refused)
	}
	refused = nil
	if !errors.As(&AddressTakenError{Address: "a@b.test"}, &refused) || !strings.Contains(refused.Reason, "a@b.test") {
		t.Fatalf("address taken: parent %+v", refused)
	}
}
