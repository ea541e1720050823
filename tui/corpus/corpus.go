// Package corpus is sandview's test corpus of mail: the real-world and
// malformed messages that ship as test data with the Go modules sandview
// depends on (enmime's mails and parts, chardet's web pages in legacy
// charsets, html2text's samples) and a generated hostile set (invisible
// characters, emoji sequences, CJK, RTL and bidi controls, Indic scripts,
// newsletter preheaders, 2,000-column lines, tabs and control characters,
// large and malformed HTML). testdata/README.md says where each file comes
// from.
//
// Tests load every mail with All, parsed by the embedded server's parser
// into the model.Email the TUI is given, and check what reaches the
// terminal with AssertWidthsAgree. The package is for tests only.
package corpus

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"sandview/model"
	"sandview/server/mailparse"
)

//go:embed testdata
var files embed.FS

// Mail is one corpus message.
type Mail struct {
	// Name is the file's path under testdata, such as
	// "hostile/emoji.eml"; it is also the Email's ID.
	Name string
	// Raw is the RFC 5322 message, as it would arrive over SMTP.
	Raw []byte
	// Email is what the server's parser makes of Raw and the TUI is
	// given (not yet sanitized): subject, from, to, text, html, headers,
	// attachments and links.
	Email model.Email
	// Warnings are the parser's complaints about a malformed message.
	Warnings []string
}

// All loads every mail of the corpus, ordered by name.
func All() ([]Mail, error) {
	var names []string
	err := fs.WalkDir(files, "testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && isMail(p) {
			names = append(names, strings.TrimPrefix(p, "testdata/"))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the corpus: %w", err)
	}
	slices.Sort(names)
	mails := make([]Mail, 0, len(names))
	for _, name := range names {
		m, err := Load(name)
		if err != nil {
			return nil, err
		}
		mails = append(mails, m)
	}
	return mails, nil
}

// Load loads one mail by its name.
func Load(name string) (Mail, error) {
	data, err := files.ReadFile(path.Join("testdata", name))
	if err != nil {
		return Mail{}, fmt.Errorf("load corpus mail %s: %w", name, err)
	}
	raw := data
	if path.Ext(name) == ".html" {
		raw = htmlMail(name, data)
	}
	msg := mailparse.Parse(raw)
	return Mail{Name: name, Raw: raw, Email: emailOf(name, msg), Warnings: msg.Warnings}, nil
}

// isMail reports the corpus files that are mails (or HTML bodies).
func isMail(p string) bool {
	switch path.Ext(p) {
	case ".raw", ".eml", ".html":
		return true
	}
	return false
}

// htmlMail wraps a web page into a mail whose only part is the page; the
// parser finds its charset in its meta tag, as it does for mail.
func htmlMail(name string, page []byte) []byte {
	head := "From: Corpus <corpus@sandview.test>\r\nTo: inbox@sandview.test\r\n" +
		"Subject: " + name + "\r\nMIME-Version: 1.0\r\nContent-Type: text/html\r\n" +
		"Content-Transfer-Encoding: 8bit\r\n\r\n"
	return append([]byte(head), page...)
}

// emailOf is the email the TUI gets for a parsed message.
func emailOf(id string, msg *mailparse.Message) model.Email {
	return model.Email{
		ID:          id,
		From:        msg.From,
		To:          msg.To,
		Subject:     msg.Subject,
		Text:        msg.Content.Text,
		HTML:        msg.Content.HTML,
		ReceivedAt:  msg.Date,
		Headers:     msg.Content.Headers,
		Attachments: msg.Content.Attachments,
		Links:       msg.Content.Links,
		HasContent:  true,
	}
}
