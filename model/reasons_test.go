package model

import (
	"slices"
	"testing"
)

// TestReasonsSayWhatTheDNSDid: a check the DNS did not answer, refused or
// failed is temperror, the verdict is not verified (never fail), and the
// reason says what the DNS did; a broken record (permerror) fails and says
// so; a passing or skipped check gives no reason.
func TestReasonsSayWhatTheDNSDid(t *testing.T) {
	pass := &SPFResult{Result: ResultPass, Details: "spf=pass smtp.mailfrom=a@example.org (matched ip)"}
	tests := []struct {
		name    string
		auth    AuthResults
		verdict AuthVerdict
		want    []string
	}{
		{"all pass", AuthResults{SPF: pass, DKIM: []DKIMResult{{Result: ResultPass}}, DMARC: &DMARCResult{Result: ResultPass}}, VerdictPassed, nil},
		{"DKIM timed out", AuthResults{SPF: pass,
			DKIM:  []DKIMResult{{Result: ResultTemperror, Signature: "dkim=temperror (dns timeout) header.d=example.org header.s=sel"}},
			DMARC: &DMARCResult{Result: ResultTemperror, Details: "dns timeout"}},
			VerdictNotVerified, []string{"DKIM: the DNS did not answer", "DMARC: the DNS did not answer"}},
		{"refused", AuthResults{SPF: &SPFResult{Result: ResultTemperror, Details: "spf=temperror smtp.mailfrom=a@example.org (dns refused)"},
			DKIM:       []DKIMResult{{Result: ResultTemperror, Signature: "dkim=temperror (dns refused) header.d=example.org"}},
			DMARC:      &DMARCResult{Result: ResultTemperror, Details: "dns refused"},
			ReverseDNS: &ReverseDNSResult{Result: ResultTemperror}},
			VerdictNotVerified, []string{"SPF: the DNS refused the query", "DKIM: the DNS refused the query", "DMARC: the DNS refused the query"}},
		{"server failure", AuthResults{SPF: &SPFResult{Result: ResultTemperror, Details: "spf=temperror smtp.mailfrom=a@x (dns server failure)"}},
			VerdictNotVerified, []string{"SPF: the DNS server failed"}},
		{"broken DMARC record fails", AuthResults{SPF: pass, DKIM: []DKIMResult{{Result: ResultPass}},
			DMARC: &DMARCResult{Result: ResultPermerror, Details: "invalid policy for parameter 'p'"}},
			VerdictFailed, []string{"DMARC: a broken record (invalid policy for parameter 'p')"}},
		{"a failed signature beats a timed-out one", AuthResults{DKIM: []DKIMResult{
			{Result: ResultTemperror, Signature: "dkim=temperror (dns timeout)"},
			{Result: ResultFail, Signature: "dkim=fail (body hash mismatch) header.d=example.org"}}},
			VerdictFailed, []string{"DKIM: fail (body hash mismatch)"}},
		{"no records", AuthResults{SPF: &SPFResult{Result: ResultNone}, DKIM: []DKIMResult{{Result: ResultNone, Signature: "dkim=none (message not signed)"}}, DMARC: &DMARCResult{Result: ResultNone}},
			VerdictNotVerified, []string{"SPF: no record", "DKIM: not signed", "DMARC: no record"}},
		{"skipped", AuthResults{SPF: &SPFResult{Result: ResultSkipped}, DMARC: &DMARCResult{Result: ResultSkipped}}, VerdictNotChecked, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if v := tt.auth.Verdict(); v != tt.verdict {
				t.Errorf("verdict %q, want %q", v.Word(), tt.verdict.Word())
			}
			if got := tt.auth.Reasons(); !slices.Equal(got, tt.want) {
				t.Errorf("Reasons = %q, want %q", got, tt.want)
			}
		})
	}
}
