package emailauth

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"sandview/model"
)

// demoResolver publishes SPF, DKIM, DMARC and forward-confirmed reverse DNS
// for example.org sending from 127.0.0.1.
func demoResolver(dkimRecord string) StaticResolver {
	return StaticResolver{
		TXT: map[string][]string{
			"example.org":                {"v=spf1 ip4:127.0.0.1 -all"},
			"sel._domainkey.example.org": {dkimRecord},
			"_dmarc.example.org":         {"v=DMARC1; p=reject"},
		},
		A:   map[string][]net.IPAddr{"mail.example.org": {{IP: clientIP}}},
		PTR: map[string][]string{"127.0.0.1": {"mail.example.org."}},
	}
}

func TestCheckAllPass(t *testing.T) {
	key := newEd25519Key(t)
	checker := Checker{Resolver: demoResolver(keyRecord(t, key))}
	in := Input{
		Raw:        sign(t, testMessage("hello\n"), "example.org", "sel", key),
		RemoteIP:   clientIP,
		Helo:       "mail.example.org",
		MailFrom:   "bounces@example.org",
		FromDomain: "example.org",
	}
	got := checker.Check(context.Background(), in)

	want := model.AuthResults{
		SPF: &model.SPFResult{Result: model.ResultPass, Domain: "example.org", IP: "127.0.0.1",
			Details: "spf=pass smtp.mailfrom=bounces@example.org (matched ip)"},
		DKIM: []model.DKIMResult{{Result: model.ResultPass, Domain: "example.org", Selector: "sel",
			Signature: "dkim=pass header.d=example.org header.s=sel"}},
		DMARC:      &model.DMARCResult{Result: model.ResultPass, Policy: "reject", Aligned: true, Domain: "example.org"},
		ReverseDNS: &model.ReverseDNSResult{Result: model.ResultPass, IP: "127.0.0.1", Hostname: "mail.example.org"},
	}
	if *got.SPF != *want.SPF || len(got.DKIM) != 1 || got.DKIM[0] != want.DKIM[0] ||
		*got.DMARC != *want.DMARC || *got.ReverseDNS != *want.ReverseDNS {
		t.Errorf("Check =\n%+v %+v %+v %+v\nwant\n%+v %+v %+v %+v", *got.SPF, got.DKIM, *got.DMARC, *got.ReverseDNS,
			*want.SPF, want.DKIM, *want.DMARC, *want.ReverseDNS)
	}
	if v := got.Validate(); !v.Passed {
		t.Errorf("Validate = %+v, want passed", v)
	}
}

func TestCheckSpoofedSender(t *testing.T) {
	key := newEd25519Key(t)
	checker := Checker{Resolver: demoResolver(keyRecord(t, key))}
	got := checker.Check(context.Background(), Input{
		Raw:        testMessage("unsigned\n"),
		RemoteIP:   otherIP,
		Helo:       "spoofer.example.net",
		MailFrom:   "dana@example.org",
		FromDomain: "example.org",
	})
	if got.SPF.Result != model.ResultFail || got.DKIM[0].Result != model.ResultNone ||
		got.DMARC.Result != model.ResultFail || got.DMARC.Policy != "reject" || got.DMARC.Aligned ||
		got.ReverseDNS.Result != model.ResultNone {
		t.Errorf("Check = %+v %+v %+v %+v", *got.SPF, got.DKIM, *got.DMARC, *got.ReverseDNS)
	}
}

func TestSkipped(t *testing.T) {
	got := Skipped("127.0.0.1")
	if got.SPF.Result != model.ResultSkipped || got.SPF.IP != "127.0.0.1" ||
		len(got.DKIM) != 1 || got.DKIM[0].Result != model.ResultSkipped ||
		got.DMARC.Result != model.ResultSkipped || got.ReverseDNS.Result != model.ResultSkipped ||
		got.ReverseDNS.IP != "127.0.0.1" {
		t.Errorf("Skipped = %+v %+v %+v %+v", *got.SPF, got.DKIM, *got.DMARC, *got.ReverseDNS)
	}
	v := got.Validate()
	if len(v.Failures) != 0 || len(v.Skipped) != 4 {
		t.Errorf("Validate(Skipped) = %+v, want four skipped checks and no failures", v)
	}
}

// assertTimedOut checks the degraded results of a Check whose DNS never
// answered.
func assertTimedOut(t *testing.T, got model.AuthResults) {
	t.Helper()
	if got.SPF.Result != model.ResultTemperror || !strings.Contains(got.SPF.Details, "dns timeout") {
		t.Errorf("SPF = %+v, want temperror (dns timeout)", *got.SPF)
	}
	if len(got.DKIM) != 1 || got.DKIM[0].Result != model.ResultTemperror || !strings.Contains(got.DKIM[0].Signature, "dns timeout") {
		t.Errorf("DKIM = %+v, want temperror (dns timeout)", got.DKIM)
	}
	if got.DMARC.Result != model.ResultTemperror || got.DMARC.Details != dnsTimeout || got.DMARC.Aligned {
		t.Errorf("DMARC = %+v, want temperror (dns timeout), not aligned", *got.DMARC)
	}
	if got.ReverseDNS.Result != model.ResultTemperror {
		t.Errorf("ReverseDNS = %+v, want temperror", *got.ReverseDNS)
	}
	if v := got.Verdict(); v != model.VerdictNotVerified {
		t.Errorf("verdict %s, want not verified: the DNS did not answer", v.Word())
	}
}

func timeoutInput(t *testing.T) Input {
	return Input{
		Raw:        sign(t, testMessage("hello\n"), "example.org", "sel", newEd25519Key(t)),
		RemoteIP:   clientIP,
		Helo:       "mail.example.org",
		MailFrom:   "dana@example.org",
		FromDomain: "example.org",
	}
}

func TestCheckEndsWithinBudgetWhenDNSHangs(t *testing.T) {
	const budget = 300 * time.Millisecond
	checker := Checker{Resolver: blockingResolver{}, Budget: budget}
	in := timeoutInput(t)

	deadline := time.Now().Add(budget + 200*time.Millisecond)
	got := checker.Check(context.Background(), in)
	if late := time.Since(deadline); late > 0 {
		t.Fatalf("Check ended %v after its budget+200ms", late)
	}
	assertTimedOut(t, got)
}

func TestCheckDefaultBudgetWithoutDNS(t *testing.T) {
	t.Parallel()
	var checker Checker
	checker.Resolver = blockingResolver{}
	in := timeoutInput(t)

	deadline := time.Now().Add(defaultBudget + 200*time.Millisecond)
	got := checker.Check(context.Background(), in)
	if late := time.Since(deadline); late > 0 {
		t.Fatalf("Check ended %v after the default 2s budget+200ms", late)
	}
	assertTimedOut(t, got)
}

func TestCheckEndsWithinBudgetWhenResolverIgnoresContext(t *testing.T) {
	const budget = 200 * time.Millisecond
	deaf := deafResolver{release: make(chan struct{})}
	t.Cleanup(func() { close(deaf.release) })
	checker := Checker{Resolver: deaf, Budget: budget}

	deadline := time.Now().Add(budget + 200*time.Millisecond)
	got := checker.Check(context.Background(), timeoutInput(t))
	if late := time.Since(deadline); late > 0 {
		t.Fatalf("Check ended %v after its budget+200ms", late)
	}
	assertTimedOut(t, got)
}

func TestCheckStopsWhenCallerCancels(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	checker := Checker{Resolver: blockingResolver{}, Budget: time.Minute}
	done := make(chan model.AuthResults, 1)
	go func() { done <- checker.Check(ctx, timeoutInput(t)) }()
	cancel()
	select {
	case got := <-done:
		if got.SPF.Result != model.ResultTemperror || !strings.Contains(got.SPF.Details, "check canceled") {
			t.Errorf("SPF = %+v, want temperror (check canceled)", *got.SPF)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Check did not stop after its context was canceled")
	}
}

func TestCheckConcurrentUse(t *testing.T) {
	key := newEd25519Key(t)
	checker := &Checker{Resolver: demoResolver(keyRecord(t, key))}
	raw := sign(t, testMessage("hello\n"), "example.org", "sel", key)
	results := make(chan string, 8)
	for range cap(results) {
		go func() {
			got := checker.Check(context.Background(), Input{Raw: raw, RemoteIP: clientIP, MailFrom: "a@example.org", FromDomain: "example.org"})
			results <- got.DMARC.Result
		}()
	}
	for range cap(results) {
		if r := <-results; r != model.ResultPass {
			t.Errorf("DMARC = %s, want pass", r)
		}
	}
}
