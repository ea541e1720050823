package model

import (
	"bytes"
	"fmt"
	"strings"

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

// The names of the authentication checks, as Check.Name spells them.
const (
	CheckSPF        = "SPF"
	CheckDKIM       = "DKIM"
	CheckDMARC      = "DMARC"
	CheckReverseDNS = "Reverse DNS"
)

// Checks lists the checks of a in the order they are shown: SPF, DKIM,
// DMARC, reverse DNS. A check the server did not report is listed too, not
// Reported.
func (a AuthResults) Checks() Checks { return a.appendChecks(nil) }

// HasResult reports whether the check of a whose Key is key (in any case)
// was reported with result in one of its entries (Check.HasResult): search's
// spf:, dkim:, … operators.
func (a AuthResults) HasResult(key, result string) bool {
	var buf [8]Check
	for _, c := range a.judged(&buf) {
		if strings.EqualFold(c.Key, key) {
			return c.HasResult(result)
		}
	}
	return false
}

// judged is Checks in buf, so that judging a puts no list on the heap
// (append grows it there if the checks ever outnumber buf).
func (a AuthResults) judged(buf *[8]Check) Checks { return a.appendChecks(buf[:0]) }

// appendChecks appends the checks of a to cs. This is the one place that
// knows the checks one by one: a new check is a field above, its result
// type and a line here.
func (a AuthResults) appendChecks(cs Checks) Checks {
	return append(cs, a.SPF.check(), dkimCheck(a.DKIM), a.DMARC.check(), a.ReverseDNS.check())
}

func (r *SPFResult) check() Check {
	c := Check{Name: CheckSPF, Key: "spf", Decides: true}
	if r == nil {
		return c
	}
	return c.reported(r.Result, r.Domain, detailReason(r.Details), r)
}

func (r *SPFResult) entries() []CheckEntry {
	return []CheckEntry{entry(r.Result, labelled("domain ", r.Domain), labelled("ip ", r.IP), r.Details)}
}

// dkimCheck is DKIM over every signature: its result is the deciding
// signature's (decidingDKIM), each signature an entry.
func dkimCheck(sigs []DKIMResult) Check {
	c := Check{Name: CheckDKIM, Key: "dkim", Decides: true}
	if len(sigs) == 0 {
		return c
	}
	d := decidingDKIM(sigs)
	return c.reported(d.Result, d.Domain, detailReason(d.Signature), &dkimSignatures{sigs})
}

// dkimSignatures are the signatures of a DKIM check.
type dkimSignatures struct{ sigs []DKIMResult }

// hasResult reports whether any signature's result is result.
func (s *dkimSignatures) hasResult(result string) bool {
	for _, d := range s.sigs {
		if strings.EqualFold(d.Result, result) {
			return true
		}
	}
	return false
}

func (s *dkimSignatures) entries() []CheckEntry {
	out := make([]CheckEntry, len(s.sigs))
	for i, d := range s.sigs {
		out[i] = entry(d.Result, labelled("domain ", d.Domain), labelled("selector ", d.Selector), labelled("sig ", d.Signature))
	}
	return out
}

func (r *DMARCResult) check() Check {
	c := Check{Name: CheckDMARC, Key: "dmarc", Decides: true}
	if r == nil {
		return c
	}
	return c.reported(r.Result, r.Domain, r.Details, r)
}

func (r *DMARCResult) entries() []CheckEntry {
	aligned := "not aligned"
	if r.Aligned {
		aligned = "aligned"
	}
	return []CheckEntry{entry(r.Result, labelled("policy ", r.Policy), aligned, labelled("domain ", r.Domain), r.Details)}
}

// check is reverse DNS, which is reported but never decides the verdict.
func (r *ReverseDNSResult) check() Check {
	c := Check{Name: CheckReverseDNS, Key: "reverseDns"}
	if r == nil {
		return c
	}
	return c.reported(r.Result, r.Hostname, "", r)
}

func (r *ReverseDNSResult) entries() []CheckEntry {
	return []CheckEntry{entry(r.Result, labelled("host ", r.Hostname), labelled("ip ", r.IP))}
}
