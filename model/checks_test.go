package model

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestChecksListEveryCheckInOrder: the list names SPF, DKIM, DMARC and
// reverse DNS in that order, reported or not; DKIM has an entry per
// signature; only reverse DNS does not decide; details are labelled and
// never empty.
func TestChecksListEveryCheckInOrder(t *testing.T) {
	a := AuthResults{
		SPF: &SPFResult{Result: ResultPass, Domain: "example.org", IP: "192.0.2.1"},
		DKIM: []DKIMResult{{Result: ResultNone}, {Result: ResultFail, Domain: "example.org", Selector: "s1",
			Signature: "dkim=fail (body hash mismatch)"}},
	}
	checks := a.Checks()
	var names []string
	for _, c := range checks {
		names = append(names, c.Name)
	}
	if want := []string{CheckSPF, CheckDKIM, CheckDMARC, CheckReverseDNS}; !slices.Equal(names, want) {
		t.Fatalf("names %q, want %q", names, want)
	}
	spf, dkim, dmarc, rdns := checks[0], checks[1], checks[2], checks[3]
	if !spf.Reported || !spf.Decides || spf.Result != ResultPass || !slices.Equal(spf.Entries()[0].Details, []string{"domain example.org", "ip 192.0.2.1"}) {
		t.Errorf("SPF %+v", spf)
	}
	if e := dkim.Entries(); !dkim.Reported || dkim.Result != ResultFail || dkim.Subject != "example.org" || dkim.Reason != "body hash mismatch" ||
		len(e) != 2 || e[0].Result != ResultNone || len(e[0].Details) != 0 || e[1].Details[1] != "selector s1" {
		t.Errorf("DKIM %+v", dkim)
	}
	if dmarc.Reported || dmarc.Result != "" || len(dmarc.Entries()) != 0 || !dmarc.Decides {
		t.Errorf("DMARC, not reported: %+v", dmarc)
	}
	if rdns.Reported || rdns.Decides {
		t.Errorf("reverse DNS, not reported: %+v", rdns)
	}
	if got := (AuthResults{DMARC: &DMARCResult{Result: ResultPass}}).Checks()[2].Entries()[0].Details; !slices.Equal(got, []string{"not aligned"}) {
		t.Errorf("DMARC details %q", got)
	}
}

// TestDKIMIsDecidedOnce: over several signatures, Validate's failure, the
// check's result, the verdict and the reasons all name the signature that
// decides (a failure beats an inconclusive one before it).
func TestDKIMIsDecidedOnce(t *testing.T) {
	a := AuthResults{DKIM: []DKIMResult{{Result: ResultNeutral, Domain: "a.example"}, {Result: ResultFail, Domain: "b.example"}}}
	if got := a.Validate().Failures; !slices.Equal(got, []string{"DKIM check failed: fail (domain: b.example)"}) {
		t.Errorf("failures %q", got)
	}
	if c := a.Checks()[1]; c.Result != ResultFail {
		t.Errorf("DKIM result %q", c.Result)
	}
	if a.Verdict() != VerdictFailed || !slices.Equal(a.Reasons(), []string{"DKIM: fail"}) {
		t.Errorf("verdict %q, reasons %q", a.Verdict().Word(), a.Reasons())
	}
}

// TestANewCheckNeedsNoNewCode: a check the list did not have before is
// validated, judged and explained by the same code: informational, its
// failure is listed but changes nothing; deciding, it fails the verdict
// and says why.
func TestANewCheckNeedsNoNewCode(t *testing.T) {
	passing := AuthResults{SPF: &SPFResult{Result: ResultPass}, DKIM: []DKIMResult{{Result: ResultPass}},
		DMARC: &DMARCResult{Result: ResultPass}}.Checks()
	arc := Check{Name: "ARC", Reported: true, Result: ResultFail, Subject: "example.org", Reason: "chain broken"}
	informational := append(slices.Clone(passing), arc)
	v := informational.Validate()
	if !v.Passed || informational.Verdict() != VerdictPassed || informational.Reasons() != nil ||
		!slices.Equal(v.Failures, []string{"ARC check failed: fail (domain: example.org)"}) {
		t.Errorf("informational ARC: %+v, verdict %q", v, informational.Verdict().Word())
	}
	arc.Decides = true
	deciding := append(slices.Clone(passing), arc)
	if deciding.Validate().Passed || deciding.Verdict() != VerdictFailed ||
		!slices.Equal(deciding.Reasons(), []string{"ARC: fail (chain broken)"}) {
		t.Errorf("deciding ARC: verdict %q, reasons %q", deciding.Verdict().Word(), deciding.Reasons())
	}
	arc.Reported, arc.Result = false, ""
	if notReported := append(slices.Clone(passing), arc); notReported.Verdict() != VerdictNotVerified ||
		!strings.Contains(notReported.Verdict().Explanation(), "not all passed") {
		t.Errorf("a deciding check not reported: %q", notReported.Verdict().Word())
	}
}

// TestCheckKeysAreTheJSONProperties: the checks' keys are the properties
// of the authResults JSON (AuthResults' fields), one each, in field order
// (search's operators are these keys).
func TestCheckKeysAreTheJSONProperties(t *testing.T) {
	var props, keys []string
	for f := range reflect.TypeFor[AuthResults]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		props = append(props, name)
	}
	for _, c := range (AuthResults{}).Checks() {
		keys = append(keys, c.Key)
	}
	if !slices.Equal(keys, props) {
		t.Errorf("keys %q, JSON properties %q", keys, props)
	}
}

// TestHasResult: a check has a result when one of its entries has it, in
// any case (DKIM: any signature, not only the deciding one); a check not
// reported has none.
func TestHasResult(t *testing.T) {
	a := AuthResults{SPF: &SPFResult{Result: "SoftFail"}, DKIM: []DKIMResult{{Result: ResultNone}, {Result: ResultFail}, {Result: ResultPass}}}
	for _, tt := range []struct {
		key, result string
		want        bool
	}{
		{"spf", ResultSoftfail, true}, {"SPF", "softfail", true}, {"spf", ResultFail, false},
		{"dkim", ResultNone, true}, {"dkim", ResultFail, true}, {"dkim", ResultPass, true}, {"dkim", ResultTemperror, false},
		{"dmarc", ResultNone, false}, {"dmarc", "", false}, {"reverseDns", ResultPass, false}, {"arc", ResultPass, false},
	} {
		if got := a.HasResult(tt.key, tt.result); got != tt.want {
			t.Errorf("HasResult(%q, %q) = %t, want %t", tt.key, tt.result, got, tt.want)
		}
	}
	if !(AuthResults{ReverseDNS: &ReverseDNSResult{Result: ResultFail}}).HasResult("reversedns", ResultFail) {
		t.Error("reverse DNS fail not found under reversedns")
	}
}

// TestEventAuth: the webhook summary holds SPF, DKIM (as the verdict reads
// it: the deciding signature) and DMARC, and is nil when none of them was
// reported (reverse DNS alone has no field).
func TestEventAuth(t *testing.T) {
	for _, tt := range []struct {
		name string
		a    AuthResults
		want *EventAuth
	}{
		{"none reported", AuthResults{}, nil},
		{"reverse DNS only", AuthResults{ReverseDNS: &ReverseDNSResult{Result: ResultPass}}, nil},
		{"SPF only", AuthResults{SPF: &SPFResult{Result: ResultSoftfail}}, &EventAuth{SPF: ResultSoftfail}},
		{"all", AuthResults{SPF: &SPFResult{Result: ResultPass}, DKIM: []DKIMResult{{Result: ResultNone}, {Result: ResultPass}},
			DMARC: &DMARCResult{Result: ResultFail}}, &EventAuth{SPF: ResultPass, DKIM: ResultPass, DMARC: ResultFail}},
		{"DKIM decided by a failure after an inconclusive signature", AuthResults{DKIM: []DKIMResult{{Result: ResultTemperror}, {Result: ResultFail}}},
			&EventAuth{DKIM: ResultFail}},
	} {
		got := tt.a.Checks().EventAuth()
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("%s: EventAuth = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
