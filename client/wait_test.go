package client_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/internal/clienttest"
	"sandview/model"
	"sandview/server/servertest"
)

func TestMatchers(t *testing.T) {
	cases := []struct {
		m    client.Matcher
		in   string
		want bool
	}{
		{client.Matcher{}, "anything", true},
		{client.Exactly("Reset"), "Reset", true},
		{client.Exactly("Reset"), "Reset password", false},
		{client.Contains("set pass"), "Reset password", true},
		{client.Contains("x"), "Reset", false},
		{client.Regexp(regexp.MustCompile(`^Reset \w+$`)), "Reset password", true},
		{client.Regexp(regexp.MustCompile(`^password`)), "Reset password", false},
		{client.Regexp(nil), "", true},
	}
	for _, tc := range cases {
		if got := tc.m.Match(tc.in); got != tc.want {
			t.Errorf("%s on %q = %v, want %v", tc.m, tc.in, got, tc.want)
		}
	}
}

func TestWaitTimesOutAndNoWaitReturnsAtOnce(t *testing.T) {
	srv := servertest.Start(t)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategyAuto)...)
	in := clienttest.CreateInbox(t, c, "")

	start := time.Now()
	_, err := in.WaitForEmail(clienttest.Ctx(t), client.WaitOptions{Timeout: 200 * time.Millisecond})
	var timeout *client.TimeoutError
	if !errors.As(err, &timeout) || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("wait on an empty inbox: %v after %s", err, time.Since(start))
	}
	if timeout.After != 200*time.Millisecond || !strings.Contains(timeout.Error(), in.Address()) {
		t.Fatalf("timeout error %q", timeout)
	}

	start = time.Now()
	_, err = in.WaitForEmail(clienttest.Ctx(t), client.WaitOptions{Timeout: client.NoWait})
	if !errors.As(err, &timeout) || time.Since(start) > 2*time.Second {
		t.Fatalf("NoWait on an empty inbox: %v after %s", err, time.Since(start))
	}
	c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: in.Address(), Subject: "here"})
	clienttest.WaitForCount(t, in, 1)
	e, err := in.WaitForEmail(clienttest.Ctx(t), client.WaitOptions{Timeout: client.NoWait, Subject: client.Exactly("here")})
	if err != nil || e.Subject != "here" || !e.HasContent {
		t.Fatalf("NoWait with the mail there: %+v, %v", e, err)
	}
}

func TestWaitForCountMixesExistingAndNewMailWithFilters(t *testing.T) {
	srv := servertest.Start(t)
	for _, strategy := range []client.Strategy{client.StrategySSE, client.StrategyPolling} {
		t.Run(string(strategy), func(t *testing.T) {
			c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(strategy)...)
			in := clienttest.CreateInbox(t, c, model.EncryptionEncrypted)
			send := func(subject, from, text string) {
				t.Helper()
				if _, err := c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: in.Address(), Subject: subject, From: from, Text: text}); err != nil {
					t.Fatal(err)
				}
			}
			send("Code 1", "noreply@shop.example", "your code is 111")
			send("Newsletter", "noreply@shop.example", "buy")
			send("Code 2", "spam@evil.example", "your code is 222")
			clienttest.WaitForCount(t, in, 3)

			type result struct {
				emails []model.Email
				err    error
			}
			done := make(chan result, 1)
			go func() {
				emails, err := in.WaitForEmailCount(clienttest.Ctx(t), 3, client.WaitOptions{
					Subject:   client.Regexp(regexp.MustCompile(`^Code \d$`)),
					From:      client.Contains("@shop.example"),
					Predicate: func(e model.Email) bool { return strings.Contains(e.Text, "your code") },
					Timeout:   10 * time.Second,
				})
				done <- result{emails, err}
			}()
			send("Code 3", "noreply@shop.example", "your code is 333")
			send("Code 4", "noreply@shop.example", "no match in the body")
			send("Code 5", "noreply@shop.example", "your code is 555")
			r := <-done
			if r.err != nil {
				t.Fatal(r.err)
			}
			var subjects []string
			for _, e := range r.emails {
				subjects = append(subjects, e.Subject)
				if !e.HasContent {
					t.Errorf("%s without content", e.Subject)
				}
			}
			if strings.Join(subjects, ",") != "Code 1,Code 3,Code 5" {
				t.Fatalf("matched %v, want Code 1, Code 3, Code 5", subjects)
			}
		})
	}
}

func TestWaitEndsWithClientClose(t *testing.T) {
	srv := servertest.Start(t)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategyAuto)...)
	in := clienttest.CreateInbox(t, c, "")
	done := make(chan error, 1)
	go func() {
		_, err := in.WaitForEmail(context.Background(), client.WaitOptions{Timeout: time.Minute})
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for c.State().Kind != client.StateLive { // the wait has subscribed
		if time.Now().After(deadline) {
			t.Fatalf("state %s", c.State())
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, client.ErrClientClosed) {
			t.Fatalf("wait after Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait outlived Close")
	}
	if _, err := in.WaitForEmail(context.Background(), client.WaitOptions{}); !errors.Is(err, client.ErrClientClosed) {
		t.Fatalf("wait on a closed client: %v", err)
	}
}

func TestWaitPollIntervalFindsMailWithoutDelivery(t *testing.T) {
	srv := servertest.Start(t)
	proxy := clienttest.NewEventProxy(t, srv.URL())
	proxy.Set("hang")
	// sse with a stream that never opens and a long reconnect delay: only
	// the wait's own PollInterval can find the mail.
	opts := append(clienttest.Fast(client.StrategySSE), client.WithSSE(time.Hour, 1, 100*time.Millisecond))
	c := clienttest.NewClient(t, proxy.URL, opts...)
	in := clienttest.CreateInbox(t, c, "")
	done := make(chan error, 1)
	go func() {
		_, err := in.WaitForEmail(clienttest.Ctx(t), client.WaitOptions{Subject: client.Exactly("late"), Timeout: 10 * time.Second, PollInterval: 50 * time.Millisecond})
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for c.State().Kind != client.StateReconnecting {
		if time.Now().After(deadline) {
			t.Fatalf("state %s", c.State())
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: in.Address(), Subject: "late"})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
