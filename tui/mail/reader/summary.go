package reader

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// summaryLabel is the width of the labels of the reader's summary.
const summaryLabel = 9

// summary is the block above the reader's tabs: who sent the open email
// to whom, its subject, when it was written and when it came.
type summary struct {
	ctx *ui.Context
	// tall: the reader is tall enough to give a long subject a second
	// line (subjectWrapHeight).
	tall bool
}

// head is the summary above the tabs: from, to, cc (when there is one),
// subject, the date the message says it was written (its Date header) and
// the time the server received it.
func (s *summary) head(m model.Email, width int) []string {
	st := s.ctx.Styles()
	label := func(name, value string) string {
		return st.Label.Render(fmt.Sprintf("%-*s", summaryLabel, name)) + st.Value.Render(value)
	}
	room := width - summaryLabel
	date := ""
	if m.HasContent {
		date = s.sentDate(m, room)
	}
	from := m.From
	if user := m.SMTPUser(); user != "" {
		from += "  (SMTP login " + user + ")"
	}
	head := []string{label("From", from), label("To", shownTo(m, room))}
	if cc := m.Cc(); len(cc) > 0 {
		head = append(head, label("Cc", addressList(cc, room)))
	}
	if unnamed := unnamedRecipients(m); len(unnamed) > 0 {
		head = append(head, label("Envelope", "to "+addressList(unnamed, room-3)))
	}
	subject := subjectLines(m, room, s.tall)
	head = append(head, label("Subject", subject[0]))
	for _, more := range subject[1:] {
		head = append(head, strings.Repeat(" ", summaryLabel)+st.Value.Render(more))
	}
	head = append(head, label("Date", date), label("Received", s.receivedDate(m)))
	if m.Problem != "" {
		head[len(head)-2] = st.Problem.Render(ui.Fit(" ⚠ CANNOT OPEN THIS EMAIL: "+m.Problem+" — content not shown", width))
	}
	return head
}

// height is the number of lines of the summary of m in width cells:
// with a Cc line only when m has a Cc header, and a second Subject line
// when the subject does not fit on one.
func (s *summary) height(m model.Email, width int) int {
	n := 4 + len(subjectLines(m, width-summaryLabel, s.tall))
	if len(m.Cc()) > 0 {
		n++
	}
	if len(unnamedRecipients(m)) > 0 {
		n++
	}
	return n
}

// shownTo is the To line: the header's recipients, or (when it names
// none) the envelope's, labelled as such (model.Email.ShownTo).
func shownTo(m model.Email, room int) string {
	to, fromEnvelope := m.ShownTo()
	if !fromEnvelope {
		return addressList(to, room)
	}
	label := " " + model.EnvelopeLabel
	return addressList(to, room-len(label)) + label
}

// unnamedRecipients are the envelope recipients that neither the To line
// nor the Cc line shows (a Bcc, a catch-all alias): the summary names
// them on a line of their own.
func unnamedRecipients(m model.Email) []string {
	to, fromEnvelope := m.ShownTo()
	if fromEnvelope {
		return nil
	}
	shown := append(slices.Clip(to), m.Cc()...)
	var out []string
	for _, rcpt := range m.EnvelopeTo() {
		if !slices.ContainsFunc(shown, func(s string) bool { return model.NamesAddress(s, rcpt) }) {
			out = append(out, model.AddrSpec(rcpt))
		}
	}
	return out
}

// subjectWrapHeight is the height of the shortest reader whose summary
// gives a long subject a second line (a shorter one leaves it to the
// body and cuts the subject with …).
const subjectWrapHeight = 16

// subjectLines is the subject of m on one line of room cells, or on two
// when it does not fit and two may be used (the second cut with … if it
// still does not).
func subjectLines(m model.Email, room int, two bool) []string {
	subject := m.Subject
	if subject == "" {
		subject = "(no subject)"
	}
	if !two || termtext.Width(subject) <= room {
		return []string{subject}
	}
	lines := ui.Wrap(subject, room)
	return []string{lines[0], ui.Fit(strings.Join(lines[1:], " "), room)}
}

// sentDate is the message's Date header (model.Email.SentDate) in the
// sender's zone and, when it differs, in the user's ("here"); shorter
// forms when it does not fit in room cells; or why there is no date to
// show, in the words of model.Email.DateText.
func (s *summary) sentDate(m model.Email, room int) string {
	sent, err := m.SentDate()
	if err != nil {
		return err.Error()
	}
	local := sent.In(s.ctx.Now.Location())
	sameZone := offsetOf(local) == offsetOf(sent)
	here := "15:04 MST"
	if local.Format("20060102") != sent.Format("20060102") {
		here = "Mon 2 Jan 15:04 MST"
	}
	var last string
	for _, form := range []struct{ sent, here, suffix string }{
		{"Mon, 2 Jan 2006 15:04:05 -0700", here, " here"},
		{"2006-01-02 15:04 -0700", here, " here"},
		{"2006-01-02 15:04 -0700", here, ""},
	} {
		last = sent.Format(form.sent)
		if !sameZone {
			last += " (" + local.Format(form.here) + form.suffix + ")"
		}
		if termtext.Width(last) <= room {
			break
		}
	}
	return last
}

// offsetOf is the offset from UTC of t's zone, in seconds.
func offsetOf(t time.Time) int {
	_, off := t.Zone()
	return off
}

// receivedDate is when the server received the message, in the user's
// zone, with how long ago.
func (s *summary) receivedDate(m model.Email) string {
	if m.ReceivedAt.IsZero() {
		return "unknown"
	}
	now := s.ctx.Now
	age := ui.RelativeTime(m.ReceivedAt, now)
	if age == "now" {
		age = "just now"
	} else if !strings.Contains(age, " ") && len(age) <= 4 {
		age += " ago"
	}
	return m.ReceivedAt.In(now.Location()).Format("2006-01-02 15:04:05 MST") + " (" + age + ")"
}

// addressList is as many of addresses as fit in room cells, then "and N
// more" for the others; the first is cut to leave room for the count.
func addressList(addresses []string, room int) string {
	if len(addresses) == 0 {
		return "(none)"
	}
	more := func(n int) string { return fmt.Sprintf(" and %d more", n) }
	out := addresses[0]
	for i := 1; i < len(addresses); i++ {
		next := out + ", " + addresses[i]
		tail := ""
		if i+1 < len(addresses) {
			tail = more(len(addresses) - i - 1)
		}
		if termtext.Width(next+tail) > room {
			tail = more(len(addresses) - i)
			if i == 1 && termtext.Width(out+tail) > room {
				out = ansi.Truncate(out, max(room-termtext.Width(tail), 1), "…")
			}
			return out + tail
		}
		out = next
	}
	return out
}
