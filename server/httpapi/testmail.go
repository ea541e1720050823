package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/http"
	"strings"
	"time"

	"sandview/model"
	"sandview/server/access"
	"sandview/server/core"
)

// defaultTestSender is the From of a test email that names none.
const defaultTestSender = "test@sandview.test"

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
	auth := choice.results(testOrigin{domain: senderDomain(from), ip: "127.0.0.1"})
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
