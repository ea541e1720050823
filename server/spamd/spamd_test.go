package spamd_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"sandview/server/spamd"
	"sandview/server/spamd/spamdtest"
)

const spammy = "From: winner@example.org\r\nTo: b@example.org\r\nSubject: Buy cheap viagra now\r\n\r\n" +
	"Buy cheap viagra!!! Click http://bit.ly/x now, 100% free, act now\r\n"

// A real spamd scores a spammy message: the score, the threshold and the
// rules that fired with their points and descriptions.
func TestRealSpamd(t *testing.T) {
	addr := spamdtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := spamd.Client{Addr: addr}.Check(ctx, []byte(spammy))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	sum := 0.0
	for _, r := range a.Rules {
		names = append(names, r.Name)
		sum += r.Score
	}
	if a.Status != "analyzed" || a.RequiredScore != 5 || a.Score <= 0 || !slices.Contains(names, "MISSING_DATE") {
		t.Fatalf("analysis %+v", a)
	}
	if d := sum - a.Score; d > 0.2 || d < -0.2 {
		t.Errorf("rules add up to %.1f, score %.1f: %+v", sum, a.Score, a.Rules)
	}
	for _, r := range a.Rules {
		if r.Description == "" {
			t.Errorf("rule %s has no description", r.Name)
		}
	}
}

// A spamd that does not answer: Check gives up when the context ends.
func TestSilentSpamd(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := (spamd.Client{Addr: l.Addr().String()}).Check(ctx, []byte(spammy)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

// Answers spamd may give: a refusal, garbage, a cut answer.
func TestBadAnswers(t *testing.T) {
	for name, answer := range map[string]string{
		"refused": "SPAMD/1.1 76 Bad header line\r\n\r\n",
		"garbage": "HTTP/1.1 200 OK\r\n\r\n",
		"cut":     "SPAMD/1.1 0 EX_OK\r\nContent-length: 5",
		"noscore": "SPAMD/1.1 0 EX_OK\r\n\r\nreport",
	} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			r := bufio.NewReader(c)
			for line, _ := r.ReadString('\n'); strings.TrimSpace(line) != ""; line, _ = r.ReadString('\n') {
			}
			c.Write([]byte(answer))
		}()
		_, err = spamd.Client{Addr: l.Addr().String()}.Check(context.Background(), []byte(spammy))
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		l.Close()
	}
}
