package model

import (
	"fmt"
	"strings"
)

// Check is one named result among an email's checks, as the CLI, the JSON
// summaries and the TUI iterate them (AuthResults.Checks lists them): what
// was checked, what came out and why, and what the report shows of it.
// Validate, Verdict and Reasons are decided over the list, so that a new
// check is one more entry in it, not one more field in every renderer.
type Check struct {
	// Name is the check as people read it: "SPF", "DKIM", "DMARC",
	// "Reverse DNS".
	Name string
	// Key is the check's property in the authResults JSON ("spf", "dkim",
	// "dmarc", "reverseDns"): search's operator for it (spf:fail), in any
	// case.
	Key string
	// Reported is false when the server reported nothing for the check;
	// Result is "" then, and Entries empty.
	Reported bool
	// Result is what the check came to: for DKIM, pass when a signature
	// passed, else the result of the signature that decides (decidingDKIM).
	Result string
	// Decides is whether the check counts in the verdict (SPF, DKIM,
	// DMARC); reverse DNS is reported only.
	Decides bool
	// Subject is the domain or host the result is about ("" when unknown),
	// as Validate's failures name it.
	Subject string
	// Reason is why the check has its result, in the server's words (such
	// as "dns timeout"), or "": Reasons puts it in words (CheckReason).
	Reason string
	// source makes the entries when asked: judging needs none of them.
	source entrySource
}

// entrySource is the result a reported check was read from.
type entrySource interface{ entries() []CheckEntry }

// Entries are what the report shows of c: one per DKIM signature, else
// one; none when c was not reported.
func (c Check) Entries() []CheckEntry {
	if c.source == nil {
		return nil
	}
	return c.source.entries()
}

// CheckEntry is one result a check reports with its details, such as
// "domain example.org" or "ip 192.0.2.1" (never empty strings).
type CheckEntry struct {
	Result  string
	Details []string
}

// Checks are an email's checks in the order they are shown.
type Checks []Check

// reported is c as the server reported it, read from source.
func (c Check) reported(result, subject, reason string, source entrySource) Check {
	c.Reported, c.Result, c.Subject, c.Reason, c.source = true, result, subject, reason, source
	return c
}

// HasResult reports whether c was reported with result (in any case) in
// one of its entries: for DKIM, any signature.
func (c Check) HasResult(result string) bool {
	if !c.Reported {
		return false
	}
	if m, ok := c.source.(interface{ hasResult(string) bool }); ok {
		return m.hasResult(result)
	}
	return strings.EqualFold(c.Result, result)
}

// entry is an entry of result with the non-empty ones of details.
func entry(result string, details ...string) CheckEntry {
	return CheckEntry{Result: result, Details: nonEmpty(details...)}
}

// nonEmpty is the non-empty strings of d.
func nonEmpty(d ...string) []string {
	out := d[:0]
	for _, s := range d {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// labelled is label followed by value, or "" when value is empty.
func labelled(label, value string) string {
	if value == "" {
		return ""
	}
	return label + value
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
func (a AuthResults) IsPassing() bool {
	var buf [8]Check
	return a.judged(&buf).passed()
}

// Validate summarises the results (Checks.Validate).
func (a AuthResults) Validate() AuthValidation {
	var buf [8]Check
	return a.judged(&buf).Validate()
}

// Validate summarises the checks as the client contract's validate() does:
// Passed when every check that decides (SPF, DKIM with at least one
// signature, DMARC) passed. Reverse DNS is reported but never changes
// Passed; skipped checks are listed as informational, not as failures.
func (cs Checks) Validate() AuthValidation {
	v := AuthValidation{Failures: []string{}, Passed: cs.passed()}
	for _, c := range cs {
		if !c.Reported {
			continue
		}
		passed := c.Result == ResultPass
		if flag := v.passedFlag(c.Name); flag != nil {
			*flag = passed
		}
		switch c.Result {
		case ResultPass:
		case ResultSkipped:
			v.Skipped = append(v.Skipped, c.Name)
		default:
			msg := fmt.Sprintf("%s check failed: %s", c.Name, orNone(c.Result))
			if c.Subject != "" {
				msg += fmt.Sprintf(" (domain: %s)", c.Subject)
			}
			v.Failures = append(v.Failures, msg)
		}
	}
	return v
}

// passedFlag is the contract's boolean of the check named name, nil for a
// check the contract has none for.
func (v *AuthValidation) passedFlag(name string) *bool {
	switch name {
	case CheckSPF:
		return &v.SPFPassed
	case CheckDKIM:
		return &v.DKIMPassed
	case CheckDMARC:
		return &v.DMARCPassed
	case CheckReverseDNS:
		return &v.ReverseDNSPassed
	}
	return nil
}

// passed reports whether every check that decides was reported and passed
// (and there is one).
func (cs Checks) passed() bool {
	deciding := 0
	for _, c := range cs {
		if !c.Decides {
			continue
		}
		if !c.Reported || c.Result != ResultPass {
			return false
		}
		deciding++
	}
	return deciding > 0
}

// decidingDKIM is the signature whose result DKIM reports: the first that
// passed, else the first that failed, else the first inconclusive one,
// else the first.
func decidingDKIM(sigs []DKIMResult) DKIMResult {
	for _, d := range sigs {
		if d.Result == ResultPass {
			return d
		}
	}
	kind := dkimKind(sigs)
	for _, d := range sigs {
		if KindOfResult(d.Result) == kind {
			return d
		}
	}
	return sigs[0]
}

// dkimKind is what the DKIM signatures add up to: passed when one passed,
// else failed when one failed, else inconclusive when one was, else skipped.
func dkimKind(sigs []DKIMResult) ResultKind {
	worst := ResultKindSkipped
	for _, d := range sigs {
		switch k := KindOfResult(d.Result); k {
		case ResultKindPassed:
			return k
		case ResultKindFailed:
			worst = k
		case ResultKindInconclusive:
			if worst != ResultKindFailed {
				worst = k
			}
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
