package webhook

import (
	"errors"
	"strings"
	"testing"

	"sandview/model"
)

func boolPtr(b bool) *bool { return &b }

func TestFilterOperators(t *testing.T) {
	mail := plainMail("f1", "Your Invoice #1042 is ready")
	mail.TextBody = strings.Repeat("a", 5*1024) + "BEYOND"
	mail.HTMLBody = "<p>Hello <b>QA</b></p>"
	mail.Headers["x-mailer"] = "Acme Mailer 2.0"
	rule := func(field, op, value string, cs bool) model.FilterRule {
		return model.FilterRule{Field: field, Operator: op, Value: value, CaseSensitive: cs}
	}
	tests := []struct {
		name string
		rule model.FilterRule
		want bool
	}{
		{"equals", rule("subject", "equals", "your invoice #1042 is ready", false), true},
		{"equals case-sensitive miss", rule("subject", "equals", "your invoice #1042 is ready", true), false},
		{"equals case-sensitive hit", rule("subject", "equals", "Your Invoice #1042 is ready", true), true},
		{"equals partial", rule("subject", "equals", "Your Invoice", false), false},
		{"contains", rule("subject", "contains", "INVOICE", false), true},
		{"contains case-sensitive", rule("subject", "contains", "INVOICE", true), false},
		{"contains miss", rule("subject", "contains", "receipt", false), false},
		{"starts_with", rule("from.address", "starts_with", "DANA@", false), true},
		{"starts_with miss", rule("from.address", "starts_with", "mail", false), false},
		{"ends_with", rule("from.address", "ends_with", ".ORG", false), true},
		{"ends_with case-sensitive", rule("from.address", "ends_with", ".ORG", true), false},
		{"from.name", rule("from.name", "equals", "dana example", false), true},
		{"to.address", rule("to.address", "equals", "qa@sandbox.test", false), true},
		{"to.name", rule("to.name", "contains", "qa", false), true},
		{"domain exact", rule("from.address", "domain", "mail.example.org", false), true},
		{"domain parent", rule("from.address", "domain", "example.org", false), true},
		{"domain with @", rule("from.address", "domain", "@EXAMPLE.org", true), true},
		{"domain not a suffix label", rule("from.address", "domain", "ample.org", false), false},
		{"domain other", rule("from.address", "domain", "example.com", false), false},
		{"domain of header display form", rule("header.From", "domain", "example.org", false), true},
		{"regex", rule("subject", "regex", `invoice #\d+`, false), true},
		{"regex case-sensitive", rule("subject", "regex", `invoice #\d+`, true), false},
		{"regex anchored miss", rule("subject", "regex", `^Invoice`, false), false},
		{"exists subject", rule("subject", "exists", "", false), true},
		{"exists header any case", rule("header.X-Mailer", "exists", "", false), true},
		{"exists missing header", rule("header.X-Missing", "exists", "", false), false},
		{"header value", rule("header.x-priority", "starts_with", "1", false), true},
		{"header upper-case name", rule("HEADER.X-MAILER", "contains", "acme", false), true},
		{"body.text first 5 KB", rule("body.text", "contains", "BEYOND", false), false},
		{"body.text start", rule("body.text", "starts_with", "aaa", false), true},
		{"body.html", rule("body.html", "contains", "<b>qa</b>", false), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, _, err := compileFilter(model.FilterConfig{Mode: "all", Rules: []model.FilterRule{tc.rule}}, false)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			if got := f.match(mail, model.VerdictPassed); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFilterMissingFields(t *testing.T) {
	mail := &model.EmailReceivedData{Headers: map[string]string{}}
	for _, r := range []model.FilterRule{
		{Field: "to.address", Operator: "exists"},
		{Field: "to.name", Operator: "contains", Value: "x"},
		{Field: "from.address", Operator: "domain", Value: "example.org"},
		{Field: "body.html", Operator: "exists"},
	} {
		f, _, err := compileFilter(model.FilterConfig{Mode: "any", Rules: []model.FilterRule{r}}, false)
		if err != nil {
			t.Fatal(err)
		}
		if f.match(mail, model.VerdictPassed) {
			t.Errorf("%+v matched an email without the field", r)
		}
	}
}

func TestFilterModesAndAuth(t *testing.T) {
	mail := plainMail("f2", "Welcome")
	failing := plainMail("f3", "Welcome")
	failing.Auth = &model.EventAuth{SPF: "pass", DKIM: "pass", DMARC: "fail"}
	noAuth := plainMail("f4", "Welcome")
	noAuth.Auth = nil
	hit := model.FilterRule{Field: "subject", Operator: "equals", Value: "welcome"}
	miss := model.FilterRule{Field: "subject", Operator: "equals", Value: "bye"}
	tests := []struct {
		name        string
		cfg         model.FilterConfig
		authDefault bool
		mail        *model.EmailReceivedData
		verdict     model.AuthVerdict // the email's, as the core gives it
		want        bool
	}{
		{"all both hit", model.FilterConfig{Mode: "all", Rules: []model.FilterRule{hit, hit}}, false, mail, model.VerdictPassed, true},
		{"all one miss", model.FilterConfig{Mode: "all", Rules: []model.FilterRule{hit, miss}}, false, mail, model.VerdictPassed, false},
		{"any one hit", model.FilterConfig{Mode: "any", Rules: []model.FilterRule{miss, hit}}, false, mail, model.VerdictPassed, true},
		{"any none", model.FilterConfig{Mode: "any", Rules: []model.FilterRule{miss, miss}}, false, mail, model.VerdictPassed, false},
		{"all no rules", model.FilterConfig{Mode: "all"}, false, mail, model.VerdictPassed, true},
		{"any no rules", model.FilterConfig{Mode: "any"}, false, mail, model.VerdictPassed, true},
		{"requireAuth passing mail", model.FilterConfig{Mode: "all", RequireAuth: boolPtr(true)}, false, mail, model.VerdictPassed, true},
		{"requireAuth dmarc fail", model.FilterConfig{Mode: "all", RequireAuth: boolPtr(true)}, false, failing, model.VerdictFailed, false},
		{"requireAuth no results", model.FilterConfig{Mode: "any", Rules: []model.FilterRule{hit}, RequireAuth: boolPtr(true)}, false, noAuth, model.VerdictNoResults, false},
		{"requireAuth from server default", model.FilterConfig{Mode: "all"}, true, failing, model.VerdictFailed, false},
		{"requireAuth false overrides default", model.FilterConfig{Mode: "all", RequireAuth: boolPtr(false)}, true, failing, model.VerdictFailed, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, resolved, err := compileFilter(tc.cfg, tc.authDefault)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.match(tc.mail, tc.verdict); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
			if resolved.RequireAuth == nil {
				t.Error("effective requireAuth not recorded")
			}
		})
	}
}

func TestFilterValidation(t *testing.T) {
	long := strings.Repeat("v", 1001)
	many := make([]model.FilterRule, 11)
	for i := range many {
		many[i] = model.FilterRule{Field: "subject", Operator: "contains", Value: "x"}
	}
	tests := []struct {
		name    string
		cfg     model.FilterConfig
		invalid bool // a regular expression that does not compile
	}{
		{"no mode", model.FilterConfig{}, false},
		{"bad mode", model.FilterConfig{Mode: "most"}, false},
		{"too many rules", model.FilterConfig{Mode: "all", Rules: many}, false},
		{"unknown field", model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "cc.address", Operator: "exists"}}}, false},
		{"empty header name", model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "header.", Operator: "exists"}}}, false},
		{"unknown operator", model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "subject", Operator: "like", Value: "x"}}}, false},
		{"value too long", model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "subject", Operator: "contains", Value: long}}}, false},
		{"value missing", model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "subject", Operator: "contains"}}}, false},
		{"bad regex", model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "subject", Operator: "regex", Value: "(unclosed"}}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := compileFilter(tc.cfg, false)
			var fe *filterError
			if !errors.As(err, &fe) || fe.invalid != tc.invalid {
				t.Errorf("err %v, want a filter error with invalid %t", err, tc.invalid)
			}
		})
	}
	if _, _, err := compileFilter(model.FilterConfig{Mode: "all", Rules: []model.FilterRule{{Field: "subject", Operator: "contains", Value: strings.Repeat("é", 1000)}}}, false); err != nil {
		t.Errorf("1000-character value refused: %v", err)
	}
}
