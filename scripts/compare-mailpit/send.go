package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// send sends mails over conns connections at once (each one mail after
// the other), numbering them from first, and returns mails per second.
func send(s *server, mails, conns, first int) (float64, error) {
	errs := make(chan error, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range conns {
		n := mails / conns
		if c < mails%conns {
			n++
		}
		wg.Add(1)
		go func(from, n int) {
			defer wg.Done()
			errs <- sendOn(s, from, n)
		}(first+c*(mails/conns+1), n)
	}
	wg.Wait()
	took := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return float64(mails) / took.Seconds(), nil
}

// sendOn sends n mails on one connection.
func sendOn(s *server, from, n int) error {
	c, err := smtp.Dial(s.smtp)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("compare.example"); err != nil {
		return err
	}
	for i := range n {
		if err := c.Mail("orders@example.org", nil); err != nil {
			return err
		}
		if err := c.Rcpt(s.to, nil); err != nil {
			return err
		}
		w, err := c.Data()
		if err != nil {
			return err
		}
		if _, err := w.Write(message(s.to, from+i)); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	return c.Quit()
}

// message is the server benchmarks' small multipart notification.
func message(to string, i int) []byte {
	var b bytes.Buffer
	thanks := strings.Repeat("Thank you for your order. ", 20)
	fmt.Fprintf(&b, "From: Shop <orders@example.org>\r\nTo: %s\r\nSubject: Your order #%d has shipped\r\n"+
		"Message-ID: <order-%d@example.org>\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n"+
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\nTrack it at https://example.org/track/%d\r\n"+
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>%s</p><p><a href=\"https://example.org/track/%d\">Track it</a></p>\r\n"+
		"--b--\r\n", to, i, i, thanks, i, thanks, i)
	return b.Bytes()
}
