package mailparse

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestMboxFromLine: Python's msg_25.txt starts with an mbox "From " line;
// it is dropped as an MTA drops it, so the sender, the subject and the Date
// are read (they were lost: the whole mail was kept as text).
func TestMboxFromLine(t *testing.T) {
	raw, err := os.ReadFile("testdata/python_msg_25.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := Parse(raw)
	if m.FromAddress != "MAILER-DAEMON@zinfandel.lacita.com" || !strings.HasPrefix(m.Subject, "Returned mail: Too many hops") {
		t.Fatalf("From %q, Subject %q, warnings %q", m.From, m.Subject, m.Warnings)
	}
	if m.Date.Format(time.RFC1123Z) != "Fri, 06 Apr 2001 09:23:06 -0800" || m.Content.Headers["date"] == "" {
		t.Fatalf("Date %v", m.Date)
	}
	if _, ok := m.Content.Headers["from mailer-daemon fri apr 06 16"]; ok || strings.Contains(m.Content.Text, "From MAILER-DAEMON") {
		t.Fatal("the From_ line was read as part of the message")
	}
}

// TestPythonMail: a mail made by Python's email package
// (testdata/gen_python.py): encoded names, one with a comma, a folded Cc of
// twelve, the Date with its offset.
func TestPythonMail(t *testing.T) {
	raw, err := os.ReadFile("testdata/python_cc_date.eml")
	if err != nil {
		t.Fatal(err)
	}
	m := Parse(raw)
	if m.From != `"Zoë Sender" <zoe@example.org>` || m.Subject != "Réunion au café" || len(m.To) != 3 {
		t.Fatalf("From %q Subject %q To %q", m.From, m.Subject, m.To)
	}
	if len(m.Cc) != 12 || m.Cc[0].Name != "Café, Team" || m.Cc[11].Address != "cc10@example.net" {
		t.Fatalf("Cc %+v", m.Cc)
	}
	if _, offset := m.Date.Zone(); offset != 3600 || m.Date.Hour() != 10 {
		t.Fatalf("Date %v", m.Date)
	}
	if !strings.Contains(m.Content.Text, "Café du Coin") {
		t.Fatalf("Text %q", m.Content.Text)
	}
}
