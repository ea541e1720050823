package emailauth

import (
	"context"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dmarc"

	"sandview/model"
)

func TestDMARC(t *testing.T) {
	dns := newBoundedResolver(StaticResolver{TXT: map[string][]string{
		"_dmarc.example.org":   {"v=DMARC1; p=reject; sp=quarantine"},
		"_dmarc.strict.org":    {"v=DMARC1; p=quarantine; adkim=s; aspf=s"},
		"_dmarc.relaxed.org":   {"v=DMARC1; p=none"},
		"_dmarc.invalid.org":   {"v=DMARC1; p=sometimes"},
		"_dmarc.unrelated.org": {"some other text"},
	}})
	pass := func(domain string) []model.DKIMResult {
		return []model.DKIMResult{{Result: model.ResultPass, Domain: domain}}
	}
	failed := []model.DKIMResult{{Result: model.ResultFail, Domain: "example.org"}}
	spfPass := func(domain string) *model.SPFResult {
		return &model.SPFResult{Result: model.ResultPass, Domain: domain}
	}
	spfFail := &model.SPFResult{Result: model.ResultFail, Domain: "example.org"}

	tests := []struct {
		name       string
		fromDomain string
		spf        *model.SPFResult
		dkim       []model.DKIMResult
		want       model.DMARCResult
	}{
		{"aligned DKIM passes", "example.org", spfFail, pass("example.org"),
			model.DMARCResult{Result: model.ResultPass, Policy: "reject", Aligned: true, Domain: "example.org"}},
		{"relaxed DKIM alignment across subdomains", "example.org", spfFail, pass("mail.example.org"),
			model.DMARCResult{Result: model.ResultPass, Policy: "reject", Aligned: true, Domain: "example.org"}},
		{"aligned SPF passes", "example.org", spfPass("bounces.example.org"), failed,
			model.DMARCResult{Result: model.ResultPass, Policy: "reject", Aligned: true, Domain: "example.org"}},
		{"unaligned DKIM fails", "example.org", spfFail, pass("other.net"),
			model.DMARCResult{Result: model.ResultFail, Policy: "reject", Domain: "example.org"}},
		{"failed DKIM fails", "example.org", spfFail, failed,
			model.DMARCResult{Result: model.ResultFail, Policy: "reject", Domain: "example.org"}},
		{"subdomain inherits sp", "news.example.org", spfFail, pass("example.org"),
			model.DMARCResult{Result: model.ResultPass, Policy: "quarantine", Aligned: true, Domain: "news.example.org"}},
		{"strict alignment needs the same name", "strict.org", spfPass("mail.strict.org"), pass("mail.strict.org"),
			model.DMARCResult{Result: model.ResultFail, Policy: "quarantine", Domain: "strict.org"}},
		{"strict alignment with the same name", "strict.org", spfFail, pass("STRICT.org."),
			model.DMARCResult{Result: model.ResultPass, Policy: "quarantine", Aligned: true, Domain: "strict.org"}},
		{"policy none is still evaluated", "relaxed.org", spfFail, failed,
			model.DMARCResult{Result: model.ResultFail, Policy: "none", Domain: "relaxed.org"}},
		{"no record", "norecord.org", spfPass("norecord.org"), failed,
			model.DMARCResult{Result: model.ResultNone, Aligned: true, Domain: "norecord.org"}},
		{"invalid record is permerror", "invalid.org", spfFail, pass("invalid.org"),
			model.DMARCResult{Result: model.ResultPermerror, Aligned: true, Domain: "invalid.org",
				Details: "invalid policy for parameter 'p'"}},
		{"unrelated TXT counts as none", "unrelated.org", spfFail, failed,
			model.DMARCResult{Result: model.ResultNone, Domain: "unrelated.org"}},
		{"no From domain", "", spfPass("example.org"), pass("example.org"),
			model.DMARCResult{Result: model.ResultNone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy := lookupDMARC(context.Background(), dns, tt.fromDomain)
			got := evaluateDMARC(policy, tt.fromDomain, tt.spf, tt.dkim)
			if *got != tt.want {
				t.Errorf("DMARC = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// TestDMARCLookupFailureIsTemperror: when DNS does not answer, DMARC is
// temperror saying why, not none (no record), and has no policy.
func TestDMARCLookupFailureIsTemperror(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	policy := lookupDMARC(ctx, newBoundedResolver(blockingResolver{}), "example.org")
	got := evaluateDMARC(policy, "example.org", &model.SPFResult{Result: model.ResultTemperror}, nil)
	if got.Result != model.ResultTemperror || got.Details != dnsTimeout || got.Policy != "" {
		t.Errorf("DMARC = %+v, want temperror (dns timeout) without a policy", *got)
	}
	if verdict := (model.AuthResults{SPF: &model.SPFResult{Result: model.ResultPass}, DMARC: got}).Verdict(); verdict != model.VerdictNotVerified {
		t.Errorf("verdict %v, want %v", verdict, model.VerdictNotVerified)
	}

	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	policy = lookupDMARC(canceled, newBoundedResolver(blockingResolver{}), "example.org")
	if got := evaluateDMARC(policy, "example.org", nil, nil); got.Result != model.ResultTemperror || got.Details != "check canceled" {
		t.Errorf("canceled: DMARC = %+v, want temperror (check canceled)", *got)
	}
}

func TestOrganizationalDomain(t *testing.T) {
	for in, want := range map[string]string{
		"mail.example.org":    "example.org",
		"Example.ORG.":        "example.org",
		"a.b.example.co.uk":   "example.co.uk",
		"sandbox.test":        "sandbox.test",
		"deep.sub.local.test": "local.test",
		"localhost":           "localhost",
	} {
		if got := organizationalDomain(in); got != want {
			t.Errorf("organizationalDomain(%q) = %q, want %q", in, got, want)
		}
	}
	if aligned("example.org", "example.com", dmarc.AlignmentRelaxed) {
		t.Error("example.org aligned with example.com")
	}
}
