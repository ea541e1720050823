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

// TestSanitizeAuthCleansDetails: the details of every check, which the
// auth report and its reasons show, are cleaned too.
func TestSanitizeAuthCleansDetails(t *testing.T) {
	hostile := "dns\x1b[2J timeout\u202e"
	a := sanitizeAuth(model.AuthResults{SPF: &model.SPFResult{Details: hostile}, DKIM: []model.DKIMResult{{Signature: hostile}},
		DMARC: &model.DMARCResult{Details: hostile}})
	for _, f := range []string{a.SPF.Details, a.DKIM[0].Signature, a.DMARC.Details} {
		tuitest.AssertNoControls(t, f)
	}
}
