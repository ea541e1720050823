package mail

import (
	"strings"
	"testing"

	"sandview/model"
	"sandview/tui/tuitest"
)

func TestSanitizeEmailCleansEveryField(t *testing.T) {
	for _, e := range tuitest.Emails() {
		e.HasContent = true
		s := sanitizeEmail(e)
		fields := []string{s.From, s.Subject, s.Text, s.HTML, s.Problem, strings.Join(s.To, ""), strings.Join(s.Links, "")}
		for k, v := range s.Headers {
			fields = append(fields, k, v)
		}
		for _, a := range s.Attachments {
			fields = append(fields, a.Filename, a.ContentType)
		}
		for _, f := range fields {
			tuitest.AssertNoControls(t, strings.ReplaceAll(f, "\n", ""))
		}
	}
}

// TestAuthReportCleansDetails: the result and the details of every check,
// which the auth report and its reasons show, are cleaned when shown.
func TestAuthReportCleansDetails(t *testing.T) {
	hostile := "dns\x1b[2J timeout\u202e"
	m := model.Email{ID: "e1", HasContent: true, AuthResults: model.AuthResults{
		SPF:        &model.SPFResult{Result: model.ResultFail + hostile, Domain: hostile, IP: hostile, Details: hostile},
		DKIM:       []model.DKIMResult{{Result: model.ResultFail, Domain: hostile, Selector: hostile, Signature: hostile}, {Result: hostile}},
		DMARC:      &model.DMARCResult{Result: model.ResultTemperror, Policy: hostile, Domain: hostile, Details: hostile},
		ReverseDNS: &model.ReverseDNSResult{Result: hostile, IP: hostile, Hostname: hostile},
	}}
	ctx := tuitest.Context(true)
	lines := authReportLines(ctx, m, 200)
	report := tuitest.Plain(strings.Join(lines, "\n"))
	if n := strings.Count(report, "dns timeout"); n < 10 {
		t.Fatalf("the report shows the details %d times, want every one:\n%s", n, report)
	}
	for _, l := range append(lines, verdictLine(ctx.Styles(), m)) {
		tuitest.AssertNoControls(t, tuitest.Plain(l))
	}
}
