package model

import (
	"bytes"
	"fmt"

	json "github.com/go-json-experiment/json/v1"
)

// Result values of authentication checks.
const (
	ResultPass      = "pass"
	ResultFail      = "fail"
	ResultSoftfail  = "softfail"
	ResultNeutral   = "neutral"
	ResultNone      = "none"
	ResultTemperror = "temperror"
	ResultPermerror = "permerror"
	ResultSkipped   = "skipped"
)

// AuthResults are the SPF, DKIM, DMARC and reverse-DNS results of an email.
// A nil check means the server reported no data for it.
type AuthResults struct {
	SPF        *SPFResult        `json:"spf,omitempty"`
	DKIM       []DKIMResult      `json:"dkim,omitempty"`
	DMARC      *DMARCResult      `json:"dmarc,omitempty"`
	ReverseDNS *ReverseDNSResult `json:"reverseDns,omitempty"`
}

// SPFResult is the SPF check.
type SPFResult struct {
	Result  string `json:"result"`
	Domain  string `json:"domain,omitempty"`
	IP      string `json:"ip,omitempty"`
	Details string `json:"details,omitempty"`
}

// DKIMResult is one DKIM signature's check.
type DKIMResult struct {
	Result    string `json:"result"`
	Domain    string `json:"domain,omitempty"`
	Selector  string `json:"selector,omitempty"`
	Signature string `json:"signature,omitempty"`
}

// DMARCResult is the DMARC check.
type DMARCResult struct {
	Result  string `json:"result"`
	Policy  string `json:"policy,omitempty"`
	Aligned bool   `json:"aligned"`
	Domain  string `json:"domain,omitempty"`
	// Details says why the result is temperror (such as "dns timeout") or
	// permerror (what is wrong with the record).
	Details string `json:"details,omitempty"`
}

// ReverseDNSResult is the reverse-DNS (PTR with forward confirmation) check.
// Its JSON carries `verified` (result == pass) beside `result`, for readers
// of the interface's earlier form (older official SDKs read only it).
type ReverseDNSResult struct {
	Result   string
	IP       string
	Hostname string
}

// reverseDNSJSON is the JSON form of ReverseDNSResult.
type reverseDNSJSON struct {
	Result   string `json:"result"`
	Verified *bool  `json:"verified,omitempty"`
	IP       string `json:"ip,omitempty"`
	Hostname string `json:"hostname,omitempty"`
}

// MarshalJSON writes result and verified.
func (r ReverseDNSResult) MarshalJSON() ([]byte, error) {
	verified := r.Result == ResultPass
	return json.Marshal(reverseDNSJSON{Result: r.Result, Verified: &verified, IP: r.IP, Hostname: r.Hostname})
}

// UnmarshalJSON also accepts the interface's earlier forms: a boolean
// (true = pass, false = fail), or an object with `verified` and no
// `result`.
func (r *ReverseDNSResult) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch string(data) {
	case "true":
		*r = ReverseDNSResult{Result: ResultPass}
		return nil
	case "false":
		*r = ReverseDNSResult{Result: ResultFail}
		return nil
	}
	var w reverseDNSJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("decode reverseDns: %w", err)
	}
	*r = ReverseDNSResult{Result: w.Result, IP: w.IP, Hostname: w.Hostname}
	if r.Result == "" && w.Verified != nil {
		r.Result = ResultFail
		if *w.Verified {
			r.Result = ResultPass
		}
	}
	return nil
}

// AuthValidation is the summary of Validate.
type AuthValidation struct {
	Passed           bool     `json:"passed"`
	SPFPassed        bool     `json:"spfPassed"`
	DKIMPassed       bool     `json:"dkimPassed"`
	DMARCPassed      bool     `json:"dmarcPassed"`
	ReverseDNSPassed bool     `json:"reverseDnsPassed"`
	Failures         []string `json:"failures"`
	// Skipped lists checks the server skipped: informational, not failures.
	Skipped []string `json:"skipped,omitempty"`
}

// IsPassing reports whether SPF, DKIM and DMARC all passed.
func (a AuthResults) IsPassing() bool { return a.Validate().Passed }

// Validate summarises the results: Passed when SPF, DKIM (at least one
// signature) and DMARC all pass. Reverse DNS is reported but never changes
// Passed; skipped checks are listed as informational, not as failures.
func (a AuthResults) Validate() AuthValidation {
	v := AuthValidation{Failures: []string{}}
	note := func(check, result, domain string) {
		switch result {
		case ResultPass:
		case ResultSkipped:
			v.Skipped = append(v.Skipped, check)
		default:
			msg := fmt.Sprintf("%s check failed: %s", check, orNone(result))
			if domain != "" {
				msg += fmt.Sprintf(" (domain: %s)", domain)
			}
			v.Failures = append(v.Failures, msg)
		}
	}
	if a.SPF != nil {
		v.SPFPassed = a.SPF.Result == ResultPass
		note("SPF", a.SPF.Result, a.SPF.Domain)
	}
	if len(a.DKIM) > 0 {
		v.DKIMPassed = a.anyDKIMPassed()
		if !v.DKIMPassed {
			first := a.DKIM[0]
			note("DKIM", worstDKIM(a.DKIM), first.Domain)
		}
	}
	if a.DMARC != nil {
		v.DMARCPassed = a.DMARC.Result == ResultPass
		note("DMARC", a.DMARC.Result, a.DMARC.Domain)
	}
	if a.ReverseDNS != nil {
		v.ReverseDNSPassed = a.ReverseDNS.Result == ResultPass
		note("Reverse DNS", a.ReverseDNS.Result, a.ReverseDNS.Hostname)
	}
	v.Passed = v.SPFPassed && v.DKIMPassed && v.DMARCPassed
	return v
}

func (a AuthResults) anyDKIMPassed() bool {
	for _, d := range a.DKIM {
		if d.Result == ResultPass {
			return true
		}
	}
	return false
}

// worstDKIM names the result to report for signatures none of which
// passed: a real failure beats none, and none beats skipped.
func worstDKIM(sigs []DKIMResult) string {
	rank := map[string]int{ResultSkipped: 0, ResultNone: 1}
	worst, worstRank := sigs[0].Result, -1
	for _, d := range sigs {
		r, known := rank[d.Result]
		if !known {
			r = 2
		}
		if r > worstRank {
			worst, worstRank = d.Result, r
		}
	}
	return worst
}

func orNone(result string) string {
	if result == "" {
		return ResultNone
	}
	return result
}
