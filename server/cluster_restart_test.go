package server_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// follower counts the email notifications one event stream subscriber
// gets, by email id.
type follower struct {
	name string
	mu   sync.Mutex
	got  map[string]int
}

// follow subscribes to an inbox's stream on srv.
func follow(t *testing.T, srv *server.Server, hash, name string) *follower {
	t.Helper()
	f := &follower{name: name, got: map[string]int{}}
	s := servertest.OpenStream(t, srv, hash)
	go func() {
		for {
			ev, err := s.Next()
			if err != nil {
				return // the stream ended with the test
			}
			if ev.IsNotification() {
				f.mu.Lock()
				f.got[ev.EmailID]++
				f.mu.Unlock()
			}
		}
	}()
	return f
}

// check waits until the follower got every id of list (the stored
// emails, listed), then checks that it got each once and no other: the
// sentinels, stored last on each replica, are streamed after anything a
// catch-up could repeat.
func (f *follower) check(t *testing.T, list []model.EmailRecord) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		f.mu.Lock()
		missing := 0
		for _, e := range list {
			if f.got[e.ID] == 0 {
				missing++
			}
		}
		f.mu.Unlock()
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d of %d stored emails not streamed", f.name, missing, len(list))
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	stored := map[string]bool{}
	for _, e := range list {
		stored[e.ID] = true
	}
	for id, n := range f.got {
		switch {
		case !stored[id]:
			t.Errorf("%s: streamed %s, which the listing lacks", f.name, id)
		case n != 1:
			t.Errorf("%s: streamed %s %d times", f.name, id, n)
		}
	}
}

// subjects counts the listed emails by subject.
func subjects(t *testing.T, list []model.EmailRecord) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, e := range list {
		meta, _ := servertest.DecodePlain(t, e)
		out[meta.Subject]++
	}
	return out
}

// TestReplicasAcrossImmediateRestart: two replicas take a burst of mail
// while PostgreSQL restarts as after a crash; most senders retry a 451
// with the same message, one gives up. Every mail answered 250 is stored
// once, one given up after a 451 not at all, and every subscriber of each
// replica streams each stored email once and nothing else.
func TestReplicasAcrossImmediateRestart(t *testing.T) {
	srvs, apis := replicas(t, 2)
	in := apis[0].CreatePlain(nil)
	var followers []*follower
	for r, srv := range srvs {
		for i := range 2 {
			followers = append(followers, follow(t, srv, in.InboxHash, fmt.Sprintf("replica %d subscriber %d", r, i)))
		}
	}
	for r, srv := range srvs { // each replica knows the inbox before the restart
		servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, fmt.Sprintf("warm %d", r)))
	}

	const senders, each = 6, 15
	var mu sync.Mutex
	refused := map[string]int{}  // subject: 451 answers
	givenUp := map[string]bool{} // subject: not retried after a 451
	sent := make(chan struct{}, senders*each)
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				subject := fmt.Sprintf("burst %d-%d", s, i)
				msg := servertest.SimpleMessage(in.EmailAddress, subject)
				giveUp := time.Now().Add(30 * time.Second)
				for attempt := 0; ; attempt++ {
					srv := srvs[(s+i+attempt)%2]
					err := servertest.SendMail(srv.SMTPAddr(), "sender@example.org", []string{in.EmailAddress}, msg)
					if err == nil {
						break
					}
					if smtpsend.Code(err) != 451 || time.Now().After(giveUp) {
						t.Errorf("send %s: %v", subject, err)
						break
					}
					mu.Lock()
					refused[subject]++
					if s == 0 { // the first sender never retries
						givenUp[subject] = true
						mu.Unlock()
						break
					}
					mu.Unlock()
					time.Sleep(20 * time.Millisecond) // a sender's pause before its retry
				}
				sent <- struct{}{}
			}
		})
	}
	for range senders * each / 3 {
		<-sent
	}
	pg.RestartImmediate(t)
	wg.Wait()
	for r, srv := range srvs {
		servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, fmt.Sprintf("sentinel %d", r)))
	}

	list := apis[1].Emails(in.EmailAddress, true)
	counts := subjects(t, list)
	for s := range senders {
		for i := range each {
			subject := fmt.Sprintf("burst %d-%d", s, i)
			want := 1
			if givenUp[subject] {
				want = 0
			}
			if n := counts[subject]; n != want {
				t.Errorf("%s (refused %d times, given up: %v) stored %d times, want %d", subject, refused[subject], givenUp[subject], n, want)
			}
		}
	}
	if want := senders*each - len(givenUp) + 4; len(list) != want {
		t.Errorf("%d emails stored, want %d", len(list), want)
	}
	t.Logf("%d mails, %d answered 451 across the restart, %d of them given up", senders*each, len(refused), len(givenUp))
	for _, f := range followers {
		f.check(t, list)
	}
}

// TestMailKeptWhenCommitAnswerLost: replica A reaches PostgreSQL through a
// proxy that closes the connection right after it forwarded the commit of
// one mail, so the database stores it and A never hears so. A answers 250
// (not 451: a sender would deliver it twice), stores it once, and the
// subscribers of both replicas stream it once.
func TestMailKeptWhenCommitAnswerLost(t *testing.T) {
	storeURL := pg.NewDatabase(t)
	proxy := pg.Proxy(t)
	a, aAPI := servertest.StartAPI(t, onStore(proxy.URL(storeURL)))
	b, bAPI := servertest.StartAPI(t, onStore(storeURL))
	in := aAPI.CreatePlain(nil)
	followers := []*follower{follow(t, a, in.InboxHash, "A"), follow(t, b, in.InboxHash, "B")}
	servertest.MustSend(t, b, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "warm"))

	fired := proxy.LoseAnswer([]byte("the lost answer"))
	if err := servertest.SendMail(a.SMTPAddr(), "sender@example.org", []string{in.EmailAddress}, servertest.SimpleMessage(in.EmailAddress, "the lost answer")); err != nil {
		t.Fatalf("send: %v, want 250", err)
	}
	select {
	case <-fired:
	default:
		t.Fatal("the proxy never saw the mail's commit")
	}
	for i, srv := range []*server.Server{a, b} {
		servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, fmt.Sprintf("sentinel %d", i)))
	}
	list := bAPI.Emails(in.EmailAddress, true)
	if n := subjects(t, list)["the lost answer"]; n != 1 || len(list) != 4 {
		t.Fatalf("the mail is stored %d times, %d emails in all; want once and 4", n, len(list))
	}
	for _, f := range followers {
		f.check(t, list)
	}
}

// doubtCase is a mail in doubt on replica A (see inDoubt).
type doubtCase struct {
	a, b      *server.Server
	bAPI      *api
	in        model.Inbox
	followers []*follower
	msg       []byte
}

// inDoubt makes replica A's commit of a mail, loses its answer, and keeps
// PostgreSQL out of A's reach past the lookup's bound: A answers 451 (it
// cannot tell), although the mail is stored. Then the database is back.
// sweep is A's sweep interval (its look-ups of mail in doubt).
func inDoubt(t *testing.T, sweep time.Duration) doubtCase {
	t.Helper()
	storeURL := pg.NewDatabase(t)
	proxy := pg.Proxy(t)
	a, _ := servertest.StartAPI(t, onStore(proxy.URL(storeURL)), func(cfg *server.Config) {
		cfg.StoreLookupTimeout = 3 * time.Second // the retry's lookup reconnects through the proxy
		cfg.SweepInterval = sweep
	})
	b, bAPI := servertest.StartAPI(t, onStore(storeURL))
	in := bAPI.CreatePlain(nil)
	x := doubtCase{a: a, b: b, bAPI: bAPI, in: in, msg: servertest.SimpleMessage(in.EmailAddress, "in doubt"),
		followers: []*follower{follow(t, a, in.InboxHash, "A"), follow(t, b, in.InboxHash, "B")}}
	servertest.MustSend(t, a, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "warm"))

	fired := proxy.LoseAnswerThenRefuse([]byte("in doubt"))
	if err := servertest.SendMail(a.SMTPAddr(), "sender@example.org", []string{in.EmailAddress}, x.msg); smtpsend.Code(err) != 451 {
		t.Fatalf("send while the database is out of reach: %v, want 451", err)
	}
	select {
	case <-fired:
	default:
		t.Fatal("the proxy never saw the mail's commit")
	}
	if n := subjects(t, bAPI.Emails(in.EmailAddress, true))["in doubt"]; n != 1 {
		t.Fatalf("the mail answered 451 is stored %d times, want once (its commit was made)", n)
	}
	proxy.Admit()
	return x
}

// retryAndCheck sends the mail in doubt again to A (250), then a sentinel
// to each replica, and checks that the mail is stored once and streamed
// once by the subscribers of both replicas.
func (x doubtCase) retryAndCheck(t *testing.T) {
	t.Helper()
	servertest.MustSend(t, x.a, x.in.EmailAddress, x.msg)
	for i, srv := range []*server.Server{x.a, x.b} {
		servertest.MustSend(t, srv, x.in.EmailAddress, servertest.SimpleMessage(x.in.EmailAddress, fmt.Sprintf("sentinel %d", i)))
	}
	list := x.bAPI.Emails(x.in.EmailAddress, true)
	if n := subjects(t, list)["in doubt"]; n != 1 || len(list) != 4 {
		t.Fatalf("after the retry the mail is stored %d times, %d emails in all; want once and 4", n, len(list))
	}
	for _, f := range x.followers {
		f.check(t, list)
	}
}

// TestMailInDoubtStoredOnceByItsRetry: a mail in doubt (inDoubt) is sent
// again before replica A looks it up (its sweep is an hour away): the
// retry is answered 250, stores nothing twice, and A's subscriber streams
// the mail once, as B's did.
func TestMailInDoubtStoredOnceByItsRetry(t *testing.T) {
	inDoubt(t, time.Hour).retryAndCheck(t)
}

// TestMailInDoubtStreamedWithoutRetry: replica A finds a mail in doubt
// stored once the database is back, and its subscriber streams it with no
// retry; a retry then is answered 250 and repeats nothing.
func TestMailInDoubtStreamedWithoutRetry(t *testing.T) {
	x := inDoubt(t, 50*time.Millisecond)
	list := x.bAPI.Emails(x.in.EmailAddress, false)
	deadline := time.Now().Add(30 * time.Second)
	for {
		x.followers[0].mu.Lock()
		streamed := len(x.followers[0].got)
		x.followers[0].mu.Unlock()
		if streamed == len(list) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("A streamed %d of %d stored emails without a retry", streamed, len(list))
		}
		time.Sleep(5 * time.Millisecond)
	}
	x.retryAndCheck(t)
}
