package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"sandview/model"
)

// testEmailAuth is the chosen result of each check, as the request gives
// it: empty (nil) when the check is not chosen. Each property is the
// check's key (model.Check.Key).
type testEmailAuth struct {
	SPF        *string         `json:"spf"`
	DKIM       *string         `json:"dkim"`
	DMARC      *string         `json:"dmarc"`
	ReverseDNS json.RawMessage `json:"reverseDns"` // a boolean or pass, fail, none
}

// Result values the test endpoint accepts per check.
var (
	testSPFResults   = []string{model.ResultPass, model.ResultFail, model.ResultSoftfail, model.ResultNeutral, model.ResultNone, model.ResultTemperror, model.ResultPermerror}
	testOtherResults = []string{model.ResultPass, model.ResultFail, model.ResultNone}
)

// testOrigin is where a test email says it comes from.
type testOrigin struct{ domain, ip string }

// testCheck is one check a test email reports: its property in the request
// (the check's key, model.Check.Key), the results it takes, the result the
// request chose (nil: not chosen) and how the email reports a result.
type testCheck struct {
	key     string
	results []string
	given   func(testEmailAuth) (*string, error)
	report  func(a *model.AuthResults, result string, from testOrigin)
}

// testChecks are the checks a test email reports, in the order of
// model.AuthResults.Checks: a new check is a row here (and its property in
// testEmailAuth).
func testChecks() []testCheck {
	return []testCheck{
		{"spf", testSPFResults, func(a testEmailAuth) (*string, error) { return a.SPF, nil },
			func(r *model.AuthResults, result string, o testOrigin) {
				r.SPF = &model.SPFResult{Result: result, Domain: o.domain, IP: o.ip, Details: "spf=" + result + " (test email)"}
			}},
		{"dkim", testOtherResults, func(a testEmailAuth) (*string, error) { return a.DKIM, nil },
			func(r *model.AuthResults, result string, o testOrigin) {
				r.DKIM = []model.DKIMResult{{Result: result, Domain: o.domain, Selector: "test", Signature: "dkim=" + result + " (test email)"}}
			}},
		{"dmarc", testOtherResults, func(a testEmailAuth) (*string, error) { return a.DMARC, nil },
			func(r *model.AuthResults, result string, o testOrigin) {
				r.DMARC = &model.DMARCResult{Result: result, Policy: model.ResultNone, Domain: o.domain, Aligned: result == model.ResultPass}
			}},
		{"reverseDns", testOtherResults, func(a testEmailAuth) (*string, error) { return reverseDNSChoice(a.ReverseDNS) },
			func(r *model.AuthResults, result string, o testOrigin) {
				r.ReverseDNS = &model.ReverseDNSResult{Result: result, IP: o.ip, Hostname: "localhost"}
			}},
	}
}

// chosen reports whether any check is chosen (or given a value it cannot
// read).
func (a testEmailAuth) chosen(checks []testCheck) bool {
	for _, c := range checks {
		if v, err := c.given(a); v != nil || err != nil {
			return true
		}
	}
	return false
}

// testAuthChoice is the chosen result of each check of testChecks, in its
// order.
type testAuthChoice []string

// authChoice reads the chosen results from whichever form the body uses
// and validates them; unchosen checks pass.
func (b testEmailBody) authChoice() (testAuthChoice, error) {
	checks := testChecks()
	given, prefix := b.testEmailAuth, ""
	if b.Auth != nil {
		if given.chosen(checks) {
			keys := make([]string, len(checks))
			for i, c := range checks {
				keys[i] = c.key
			}
			return nil, fmt.Errorf("auth results are given both at the top level (%s) and in the auth object: use one form", strings.Join(keys, ", "))
		}
		given, prefix = *b.Auth, "auth."
	}
	choice := make(testAuthChoice, len(checks))
	for i, c := range checks {
		v, err := c.given(given)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s%s %w", prefix, c.key, err)
		case v == nil:
			choice[i] = model.ResultPass
		case !slices.Contains(c.results, *v):
			return nil, fmt.Errorf("%s%s must be one of %s, got %q", prefix, c.key, strings.Join(c.results, ", "), *v)
		default:
			choice[i] = *v
		}
	}
	return choice, nil
}

// reverseDNSChoice reads reverseDns: true (pass), false (fail), or a
// result string; nil when absent.
func reverseDNSChoice(raw json.RawMessage) (*string, error) {
	if IsNull(raw) {
		return nil, nil
	}
	var asBool bool
	if json.Unmarshal(raw, &asBool) == nil {
		result := model.ResultFail
		if asBool {
			result = model.ResultPass
		}
		return &result, nil
	}
	var asString string
	if json.Unmarshal(raw, &asString) == nil {
		return &asString, nil
	}
	return nil, errors.New("must be a boolean or one of " + strings.Join(testOtherResults, ", ") + ", got " + string(raw))
}

// results renders the choice as the email's authentication results.
func (c testAuthChoice) results(from testOrigin) model.AuthResults {
	var a model.AuthResults
	for i, check := range testChecks() {
		check.report(&a, c[i], from)
	}
	return a
}
