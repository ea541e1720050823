package client

import (
	"errors"
	"regexp"
	"strings"
)

// InvalidWebhookError is a webhook create or update that the server
// refused as invalid (a 4xx with a reason): Problems says what is wrong,
// each with the field of the request it is about. Its parent class is
// *RefusedError.
type InvalidWebhookError struct {
	Problems []Problem
	refused  *RefusedError
}

func (e *InvalidWebhookError) Error() string {
	if e.refused != nil {
		return e.refused.Error()
	}
	return "the server refused the webhook: " + e.reason()
}

// Unwrap returns the parent class, which itself unwraps to the *APIError
// (when the error came from an answer).
func (e *InvalidWebhookError) Unwrap() error {
	if e.refused == nil {
		return &RefusedError{Reason: e.reason()}
	}
	return e.refused
}

// reason joins the problems' texts as the service does.
func (e *InvalidWebhookError) reason() string {
	texts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		texts[i] = p.Text
	}
	return strings.Join(texts, "; ")
}

// Problem is one thing a refusal says is wrong with a request. Field is
// the request's field it is about, as a JSON path ("url", "events",
// "template.body", "filter.rules[0].value"), or "" when it names none;
// Text is the server's words.
type Problem struct {
	Field string
	Text  string
}

// webhookField is the JSON path of a webhook request's field that the
// service starts a validation message with ("url must use https",
// "filter.rules[0].value is not a valid regular expression: …").
var webhookField = regexp.MustCompile(`(?i)^(?:url|events|template|filter|description|enabled)(?:\.[A-Za-z]+|\[\d+\])*(?:\s|:|$)`)

// webhookFieldPhrases are the service's messages that name a field in
// other words.
var webhookFieldPhrases = []struct{ prefix, field string }{
	{"unknown event", "events"}, {"unknown template", "template"},
}

// invalidWebhook makes a refusal of a request carrying a webhook an
// *InvalidWebhookError; other errors are returned as they are.
func invalidWebhook(err error) error {
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Reason == "" {
		return err
	}
	return &InvalidWebhookError{Problems: webhookProblems(refused.Reason), refused: refused}
}

// webhookProblems splits a refusal's reason into its problems (the
// service joins them with "; "), each with the field it names.
func webhookProblems(reason string) []Problem {
	var out []Problem
	for _, text := range strings.Split(reason, "; ") {
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		out = append(out, Problem{Field: webhookFieldOf(text), Text: text})
	}
	return out
}

// webhookFieldOf is the field a validation message of the service is
// about ("" when it names none).
func webhookFieldOf(text string) string {
	if m := webhookField.FindString(text); m != "" {
		return strings.TrimRight(m, " \t\n:")
	}
	lower := strings.ToLower(text)
	for _, p := range webhookFieldPhrases {
		if strings.HasPrefix(lower, p.prefix) {
			return p.field
		}
	}
	return ""
}
