package model

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateContractTable(t *testing.T) {
	pass := func() AuthResults {
		return AuthResults{
			SPF:        &SPFResult{Result: ResultPass, Domain: "example.org"},
			DKIM:       []DKIMResult{{Result: ResultPass, Domain: "example.org"}},
			DMARC:      &DMARCResult{Result: ResultPass, Domain: "example.org"},
			ReverseDNS: &ReverseDNSResult{Result: ResultPass},
		}
	}
	tests := []struct {
		name                     string
		results                  AuthResults
		passed, spf, dkim, dmarc bool
		rdns                     bool
		failureContains          []string
		noFailures               bool
	}{
		{name: "all pass gives passed", results: pass(), passed: true, spf: true, dkim: true, dmarc: true, rdns: true, noFailures: true},
		{name: "SPF failing", results: func() AuthResults { r := pass(); r.SPF.Result = ResultFail; return r }(),
			dkim: true, dmarc: true, rdns: true, failureContains: []string{"SPF check failed: fail (domain: example.org)"}},
		{name: "DKIM failing", results: func() AuthResults { r := pass(); r.DKIM[0].Result = ResultFail; return r }(),
			spf: true, dmarc: true, rdns: true, failureContains: []string{"DKIM check failed: fail"}},
		{name: "DMARC failing", results: func() AuthResults { r := pass(); r.DMARC.Result = ResultFail; return r }(),
			spf: true, dkim: true, rdns: true, failureContains: []string{"DMARC check failed: fail"}},
		{name: "several DKIM entries with one pass", results: func() AuthResults {
			r := pass()
			r.DKIM = []DKIMResult{{Result: ResultFail, Domain: "a.example"}, {Result: ResultPass, Domain: "b.example"}, {Result: ResultNone}}
			return r
		}(), passed: true, spf: true, dkim: true, dmarc: true, rdns: true, noFailures: true},
		{name: "all none gives not passed", results: AuthResults{
			SPF: &SPFResult{Result: ResultNone}, DKIM: []DKIMResult{{Result: ResultNone}},
			DMARC: &DMARCResult{Result: ResultNone}, ReverseDNS: &ReverseDNSResult{Result: ResultNone},
		}, failureContains: []string{"SPF check failed: none", "DKIM check failed: none", "DMARC check failed: none"}},
		{name: "no auth data gives not passed and all flags false", results: AuthResults{}, noFailures: true},
		{name: "reverse DNS failing does not change passed", results: func() AuthResults { r := pass(); r.ReverseDNS.Result = ResultFail; return r }(),
			passed: true, spf: true, dkim: true, dmarc: true, failureContains: []string{"Reverse DNS check failed: fail"}},
		{name: "skipped is informational, not a failure", results: AuthResults{
			SPF: &SPFResult{Result: ResultSkipped}, DKIM: []DKIMResult{{Result: ResultSkipped}},
			DMARC: &DMARCResult{Result: ResultSkipped}, ReverseDNS: &ReverseDNSResult{Result: ResultSkipped},
		}, noFailures: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.results.Validate()
			if v.Passed != tt.passed || v.SPFPassed != tt.spf || v.DKIMPassed != tt.dkim || v.DMARCPassed != tt.dmarc || v.ReverseDNSPassed != tt.rdns {
				t.Fatalf("Validate() = %+v; want passed=%v spf=%v dkim=%v dmarc=%v rdns=%v", v, tt.passed, tt.spf, tt.dkim, tt.dmarc, tt.rdns)
			}
			if v.Passed != tt.results.IsPassing() {
				t.Fatalf("IsPassing() = %v, Validate().Passed = %v", tt.results.IsPassing(), v.Passed)
			}
			if tt.noFailures && len(v.Failures) != 0 {
				t.Fatalf("failures = %q; want none", v.Failures)
			}
			joined := strings.Join(v.Failures, "\n")
			for _, want := range tt.failureContains {
				if !strings.Contains(joined, want) {
					t.Errorf("failures %q lack %q", v.Failures, want)
				}
			}
		})
	}
}

func TestValidateSkippedListed(t *testing.T) {
	v := AuthResults{SPF: &SPFResult{Result: ResultSkipped}, DMARC: &DMARCResult{Result: ResultPass}}.Validate()
	if len(v.Skipped) != 1 || v.Skipped[0] != "SPF" {
		t.Fatalf("Skipped = %q; want [SPF]", v.Skipped)
	}
}

func TestReverseDNSLegacyBoolean(t *testing.T) {
	var r AuthResults
	if err := json.Unmarshal([]byte(`{"reverseDns": true, "spf": {"result": "pass"}}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.ReverseDNS == nil || r.ReverseDNS.Result != ResultPass {
		t.Fatalf("reverseDns = %+v; want pass", r.ReverseDNS)
	}
	if err := json.Unmarshal([]byte(`{"reverseDns": false}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.ReverseDNS.Result != ResultFail {
		t.Fatalf("reverseDns = %+v; want fail", r.ReverseDNS)
	}
}

// TestReverseDNSVerified: the JSON carries verified beside result (older
// official SDKs read only verified), and an object with verified alone
// reads back as its result.
func TestReverseDNSVerified(t *testing.T) {
	for result, verified := range map[string]string{ResultPass: "true", ResultFail: "false", ResultNone: "false", ResultSkipped: "false"} {
		data, err := json.Marshal(AuthResults{ReverseDNS: &ReverseDNSResult{Result: result, IP: "192.0.2.1", Hostname: "mx.example"}})
		if err != nil {
			t.Fatal(err)
		}
		want := `{"reverseDns":{"result":"` + result + `","verified":` + verified + `,"ip":"192.0.2.1","hostname":"mx.example"}}`
		if string(data) != want {
			t.Errorf("%s: JSON %s, want %s", result, data, want)
		}
		var back AuthResults
		if err := json.Unmarshal(data, &back); err != nil || *back.ReverseDNS != (ReverseDNSResult{Result: result, IP: "192.0.2.1", Hostname: "mx.example"}) {
			t.Errorf("%s: read back %+v, %v", result, back.ReverseDNS, err)
		}
	}
	for in, want := range map[string]string{`{"verified":true,"ip":"192.0.2.1"}`: ResultPass, `{"verified":false}`: ResultFail, `{"result":"none","verified":true}`: ResultNone} {
		var r ReverseDNSResult
		if err := json.Unmarshal([]byte(in), &r); err != nil || r.Result != want {
			t.Errorf("%s: read %+v, %v; want result %s", in, r, err, want)
		}
	}
	var r ReverseDNSResult
	if err := json.Unmarshal([]byte(`{"verified":"yes"}`), &r); err == nil {
		t.Error("a verified that is not a boolean was accepted")
	}
}
