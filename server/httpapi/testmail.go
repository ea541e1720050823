package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"sandview/model"
	"sandview/server/access"
	"sandview/server/core"
)

// defaultTestSender is the From of a test email that names none.
const defaultTestSender = "test@sandview.test"

// testEmailAuth is the chosen result of each check, as the request gives
// it: empty (nil) when the check is not chosen.
type testEmailAuth struct {
	SPF        *string         `json:"spf"`
	DKIM       *string         `json:"dkim"`
	DMARC      *string         `json:"dmarc"`
	ReverseDNS json.RawMessage `json:"reverseDns"` // a boolean or pass, fail, none
}

// chosen reports whether any check is chosen.
func (a testEmailAuth) chosen() bool {
	return a.SPF != nil || a.DKIM != nil || a.DMARC != nil || !IsNull(a.ReverseDNS)
}

// testEmailBody is POST /api/test/emails in either form: the contract's
// (spf, dkim, dmarc, reverseDns at the top level) or the deployed one (the
// same under "auth"), not both at once.
type testEmailBody struct {
	To      string         `json:"to"`
	From    string         `json:"from"`
	Subject *string        `json:"subject"`
	Text    *string        `json:"text"`
	HTML    string         `json:"html"`
	Auth    *testEmailAuth `json:"auth"`
	testEmailAuth
}

// Result values the test endpoint accepts per check.
var (
	testSPFResults   = []string{model.ResultPass, model.ResultFail, model.ResultSoftfail, model.ResultNeutral, model.ResultNone, model.ResultTemperror, model.ResultPermerror}
	testOtherResults = []string{model.ResultPass, model.ResultFail, model.ResultNone}
)

func (a *API) handleTestEmail(w http.ResponseWriter, r *http.Request) {
	var body testEmailBody
	if !DecodeBody(w, r, &body) {
		return
	}
	choice, err := body.authChoice()
	if err != nil {
		WriteError(w, http.StatusBadRequest, "%v", err)
		return
	}
	to := strings.ToLower(strings.TrimSpace(body.To))
	if to == "" {
		WriteError(w, http.StatusBadRequest, "to is required: the address of an inbox")
		return
	}
	in, ok := a.inboxAt(w, r, access.SendTest, to)
	if !ok {
		return
	}
	from := strings.TrimSpace(body.From)
	if from == "" {
		from = defaultTestSender
	}
	if strings.ContainsAny(from, "\r\n") {
		WriteError(w, http.StatusBadRequest, "from must be a single line")
		return
	}
	subject := "Test Email"
	if body.Subject != nil {
		subject = *body.Subject
	}
	text := "Test email body"
	if body.Text != nil {
		text = *body.Text
	}
	now := a.opts.Now()
	raw := buildTestMessage(from, to, subject, text, body.HTML, now)
	auth := choice.results(senderDomain(from), "127.0.0.1")
	ids, err := a.core.Arrive(r.Context(), core.Arrival{
		Raw:      raw,
		RemoteIP: net.IPv4(127, 0, 0, 1),
		Helo:     "localhost",
		MailFrom: from,
		Protocol: core.ProtocolHTTP,
		Targets:  []core.Target{{Inbox: in, Rcpts: []string{to}}},
		Chosen:   &auth,
	})
	if errors.Is(err, core.ErrStopping) {
		WriteError(w, http.StatusServiceUnavailable, "server is shutting down")
		return
	}
	if err != nil {
		a.log.Error("storing a test email failed", "error", err)
		WriteError(w, http.StatusInternalServerError, "storing the test email failed")
		return
	}
	if len(ids) == 0 {
		WriteError(w, http.StatusNotFound, "Inbox not found: %s", to)
		return
	}
	WriteJSON(w, http.StatusCreated, model.TestEmailResponse{EmailID: ids[0]})
}

// testAuthChoice is the chosen result of each check.
type testAuthChoice struct {
	spf, dkim, dmarc, reverseDNS string
}

// authChoice reads the chosen results from whichever form the body uses
// and validates them; unchosen checks pass.
func (b testEmailBody) authChoice() (testAuthChoice, error) {
	given, prefix := b.testEmailAuth, ""
	if b.Auth != nil {
		if given.chosen() {
			return testAuthChoice{}, errors.New("auth results are given both at the top level (spf, dkim, dmarc, reverseDns) and in the auth object: use one form")
		}
		given, prefix = *b.Auth, "auth."
	}
	reverseDNS, err := reverseDNSChoice(given.ReverseDNS)
	if err != nil {
		return testAuthChoice{}, fmt.Errorf("%sreverseDns %w", prefix, err)
	}
	var c testAuthChoice
	for _, f := range []struct {
		name    string
		dst, v  *string
		allowed []string
	}{
		{"spf", &c.spf, given.SPF, testSPFResults},
		{"dkim", &c.dkim, given.DKIM, testOtherResults},
		{"dmarc", &c.dmarc, given.DMARC, testOtherResults},
		{"reverseDns", &c.reverseDNS, reverseDNS, testOtherResults},
	} {
		if f.v == nil {
			*f.dst = model.ResultPass
			continue
		}
		if !slices.Contains(f.allowed, *f.v) {
			return c, fmt.Errorf("%s%s must be one of %s, got %q", prefix, f.name, strings.Join(f.allowed, ", "), *f.v)
		}
		*f.dst = *f.v
	}
	return c, nil
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
	return nil, fmt.Errorf("must be a boolean or one of %s, got %s", strings.Join(testOtherResults, ", "), raw)
}

// results renders the choice as the email's authentication results.
func (c testAuthChoice) results(domain, ip string) model.AuthResults {
	return model.AuthResults{
		SPF:  &model.SPFResult{Result: c.spf, Domain: domain, IP: ip, Details: "spf=" + c.spf + " (test email)"},
		DKIM: []model.DKIMResult{{Result: c.dkim, Domain: domain, Selector: "test", Signature: "dkim=" + c.dkim + " (test email)"}},
		DMARC: &model.DMARCResult{Result: c.dmarc, Policy: model.ResultNone, Domain: domain,
			Aligned: c.dmarc == model.ResultPass},
		ReverseDNS: &model.ReverseDNSResult{Result: c.reverseDNS, IP: ip, Hostname: "localhost"},
	}
}

// senderDomain is the domain of a From value such as `"A" <a@b.example>`.
func senderDomain(from string) string {
	from = strings.TrimRight(strings.TrimSpace(from), ">")
	if at := strings.LastIndexByte(from, '@'); at >= 0 {
		return strings.ToLower(from[at+1:])
	}
	return ""
}

// buildTestMessage renders a test email as an RFC 5322 message: text only,
// or multipart/alternative with the HTML part.
func buildTestMessage(from, to, subject, text, html string, now time.Time) []byte {
	var b bytes.Buffer
	header := func(name, value string) { fmt.Fprintf(&b, "%s: %s\r\n", name, value) }
	header("From", from)
	header("To", to)
	header("Subject", mime.QEncoding.Encode("utf-8", subject))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", fmt.Sprintf("<test-%d@sandview.test>", now.UnixNano()))
	header("MIME-Version", "1.0")
	part := func(contentType, body string) {
		header("Content-Type", contentType+"; charset=utf-8")
		header("Content-Transfer-Encoding", "quoted-printable")
		b.WriteString("\r\n")
		qp := quotedprintable.NewWriter(&b)
		_, _ = qp.Write([]byte(body))
		_ = qp.Close()
	}
	if html == "" {
		part("text/plain", text)
		return b.Bytes()
	}
	const boundary = "sandview-test-boundary"
	header("Content-Type", `multipart/alternative; boundary="`+boundary+`"`)
	b.WriteString("\r\n--" + boundary + "\r\n")
	part("text/plain", text)
	b.WriteString("\r\n--" + boundary + "\r\n")
	part("text/html", html)
	b.WriteString("\r\n--" + boundary + "--\r\n")
	return b.Bytes()
}
