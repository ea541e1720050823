package mail

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"sandview/model"
	"sandview/tui/tuitest"
)

// TestChecksTab: 7 shows the HTML compatibility report, the features the
// HTML uses that clients lack with the clients named; a text-only email
// says there is nothing to check.
func TestChecksTab(t *testing.T) {
	h := newHarness(t, 200, 50)
	e := tuitest.Emails()[0]
	e.HTML = `<div style="display:grid"><p>Hi</p></div>`
	plain := tuitest.Emails()[1]
	plain.ID, plain.HTML = "plain-one", ""
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{e, plain}})
	h.Press("enter", "7")
	view := h.shown()
	for _, want := range []string{"7 Checks", "HTML compatibility", "of 48 email clients", "display:grid (css-display-grid",
		"not supported: ", "Outlook (", "Data: caniemail 2.0.2"} {
		if !strings.Contains(view, want) {
			t.Fatalf("checks tab lacks %q:\n%s", want, view)
		}
	}
	if !strings.Contains(view, "not scored: the server does not run SpamAssassin") || !strings.Contains(view, "--spamd HOST:PORT)") {
		t.Fatalf("checks tab without a spam score:\n%s", view)
	}
	h.Press("J")
	if view := h.shown(); !strings.Contains(view, "No HTML part") {
		t.Fatalf("a text-only email:\n%s", view)
	}
}

// TestChecksTabSpam: the spam score and the rules that fired; a score
// that could not be had says why.
func TestChecksTabSpam(t *testing.T) {
	h := newHarness(t, 200, 50)
	e := tuitest.Emails()[0]
	e.SpamAnalysis = &model.SpamAnalysis{Status: model.SpamAnalyzed, Score: 5.7, RequiredScore: 5, IsSpam: true,
		Rules: []model.SpamRule{{Name: "MISSING_DATE", Score: 2.7, Description: "Missing Date: header"}}}
	slow := tuitest.Emails()[1]
	slow.SpamAnalysis = &model.SpamAnalysis{Status: model.SpamError, Info: "spamd at 127.0.0.1:783 did not answer within 3s"}
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{e, slow}})
	h.Press("enter", "7")
	if view := h.shown(); !strings.Contains(view, "5.7 points, 5.0 required: SPAM") || !strings.Contains(view, "2.7  MISSING_DATE  Missing Date: header") {
		t.Fatalf("checks tab:\n%s", view)
	}
	h.Press("J")
	if view := h.shown(); !strings.Contains(view, "not scored: spamd at 127.0.0.1:783 did not answer within 3s") {
		t.Fatalf("checks tab of a mail spamd did not score:\n%s", view)
	}
}

// TestLinksTabCheck: c in the Links tab checks each link against a
// loopback server: refused first (a private address), checked when c is
// pressed again, with the status after the redirect chain.
func TestLinksTabCheck(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusMovedPermanently) })
	mux.HandleFunc("/gone", http.NotFound)
	site := httptest.NewServer(mux)
	defer site.Close()

	h := newHarness(t, 200, 50)
	e := tuitest.Emails()[0]
	e.HTML, e.Text = "", "links"
	e.Links = []string{site.URL + "/ok", site.URL + "/moved", site.URL + "/gone"}
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{e}})
	h.Press("enter", "3")
	if view := h.shown(); !strings.Contains(view, "c checks each link's HTTP status") {
		t.Fatalf("links tab before a check:\n%s", view)
	}
	h.Press("c")
	view := h.shown()
	if strings.Count(view, "– private address (loopback") != 3 || !strings.Contains(view, "c again checks them too") {
		t.Fatalf("loopback links were not refused:\n%s", view)
	}
	h.Press("c")
	view = h.shown()
	for _, want := range []string{"/ok  ✓ 200", "/moved  ✓ 301 → 200 " + site.URL + "/ok", "/gone  ✗ 404", "c checks again"} {
		if !strings.Contains(view, want) {
			t.Fatalf("links tab lacks %q:\n%s", want, view)
		}
	}
}

// TestLinksTabCheckShowsProgress: each link's status shows as it answers,
// with how many have, while a slower link is still being checked.
func TestLinksTabCheckShowsProgress(t *testing.T) {
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/slow", func(http.ResponseWriter, *http.Request) { <-release })
	site := httptest.NewServer(mux)
	defer site.Close()
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()

	h := newHarness(t, 200, 50)
	e := tuitest.Emails()[0]
	e.HTML, e.Text = "", "links"
	e.Links = []string{site.URL + "/ok", site.URL + "/slow", site.URL + "/ok"}
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{e}})
	h.Press("enter", "3", "c") // refused: loopback
	start, _ := h.s.HandleKey(tuitest.Key("c"))
	if start == nil {
		t.Fatal("no check started")
	}
	if view := h.shown(); !strings.Contains(view, "checking 3 links… c cancels") {
		t.Fatalf("links tab as the check starts:\n%s", view)
	}
	first := start() // /ok answers; /slow waits for release
	rest, _ := h.s.Update(first)
	view := h.shown()
	if strings.Count(view, "/ok  ✓ 200") != 2 || !strings.Contains(view, "checked 2 of 3 links… c cancels") || strings.Contains(view, "/slow  ✓") {
		t.Fatalf("links tab with one link answered:\n%s", view)
	}
	close(release)
	released = true
	h.Run(rest)
	view = h.shown()
	for _, want := range []string{"/slow  ✓ 200", "c checks again"} {
		if !strings.Contains(view, want) {
			t.Fatalf("links tab lacks %q after the check:\n%s", want, view)
		}
	}
}

// TestLinksTabCheckCancelledKeepsAnswers: cancelling a check keeps the
// statuses of the links that answered; the rest show none.
func TestLinksTabCheckCancelledKeepsAnswers(t *testing.T) {
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/slow", func(http.ResponseWriter, *http.Request) { <-release })
	site := httptest.NewServer(mux)
	defer site.Close()
	defer close(release)

	h := newHarness(t, 200, 50)
	e := tuitest.Emails()[0]
	e.HTML, e.Text = "", "links"
	e.Links = []string{site.URL + "/ok", site.URL + "/slow"}
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: []model.Email{e}})
	h.Press("enter", "3", "c") // refused: loopback
	start, _ := h.s.HandleKey(tuitest.Key("c"))
	rest, _ := h.s.Update(start())
	h.Press("c") // cancels
	h.Run(rest)  // returns once the cancelled check has stopped
	view := h.shown()
	for _, want := range []string{"/ok  ✓ 200", "c checks again"} {
		if !strings.Contains(view, want) {
			t.Fatalf("links tab lacks %q after cancelling:\n%s", want, view)
		}
	}
	if strings.Contains(view, "/slow  ✓") || strings.Contains(view, "/slow  –") {
		t.Fatalf("the unanswered link has a status:\n%s", view)
	}
}
