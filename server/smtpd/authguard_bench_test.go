package smtpd_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"golang.org/x/crypto/bcrypt"

	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/servertest"
)

// guess opens a connection from local and tries one wrong password for
// user; it returns the AUTH reply's code.
func guess(addr, local, user string) int {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 10 * time.Second}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return 0
	}
	c := smtp.NewClient(conn)
	defer c.Close()
	if err := c.Hello("guesser.example"); err != nil {
		return smtpsend.Code(err)
	}
	return smtpsend.Code(c.Auth(sasl.NewPlainClient("", user, "guess")))
}

// BenchmarkSMTPAuthGuessing: one client guessing a known user's password,
// a connection per guess, with the default limits: guesses/s is the rate
// of 535 answers (wrong password), answered535 how many it got in all
// (the others are 421). Passwords are hashed at htpasswd -B's cost.
func BenchmarkSMTPAuthGuessing(b *testing.B) {
	srv := servertest.Start(b, func(cfg *server.Config) { cfg.SMTP.AuthFile = authFileCost(b, bcrypt.DefaultCost, "alice") })
	answered := 0
	start := time.Now()
	for b.Loop() {
		if guess(srv.SMTPAddr(), "127.0.0.1", "alice") == 535 {
			answered++
		}
	}
	b.ReportMetric(float64(answered), "answered535")
	b.ReportMetric(float64(answered)/time.Since(start).Seconds(), "guesses/s")
}

// BenchmarkSMTPAuthKnownUnknown: the time of a wrong login for a known
// user and for an unknown one, the default limits raised out of the way.
func BenchmarkSMTPAuthKnownUnknown(b *testing.B) {
	srv := servertest.Start(b, func(cfg *server.Config) {
		cfg.SMTP.AuthFile = authFileCost(b, bcrypt.DefaultCost, "alice")
		cfg.SMTP.AuthMaxFailures, cfg.SMTP.AuthMaxFailuresPerIP = 1<<30, 1<<30
	})
	for _, user := range []string{"alice", "nobody"} {
		b.Run(user, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				local := fmt.Sprintf("127.0.%d.%d", 1+i/250%250, 1+i%250) // one failure per pair: no slowdown
				if code := guess(srv.SMTPAddr(), local, user); code != 535 {
					b.Fatalf("AUTH: %d", code)
				}
			}
		})
	}
}

// BenchmarkAPIUnderAuthGuessing: the API's latency (p50, p99 of a listing)
// while 40 connections guess passwords, all from one address (as the
// attack ran) and each from its own address.
func BenchmarkAPIUnderAuthGuessing(b *testing.B) {
	for _, spread := range []bool{false, true} {
		b.Run(map[bool]string{false: "one-address", true: "40-addresses"}[spread], func(b *testing.B) {
			srv, a := servertest.StartAPI(b, func(cfg *server.Config) {
				cfg.SMTP.AuthFile = authFileCost(b, bcrypt.DefaultCost, "alice")
			})
			in := a.CreatePlain(nil)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var guesses atomic.Int64
			for g := range 40 {
				local := "127.0.0.1"
				if spread {
					local = fmt.Sprintf("127.0.1.%d", g+1)
				}
				wg.Go(func() {
					for ctx.Err() == nil {
						guess(srv.SMTPAddr(), local, "alice")
						guesses.Add(1)
					}
				})
			}
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if code, body := a.Do("GET", "/api/inboxes/"+in.EmailAddress+"/emails", nil); code != 200 {
					b.Fatalf("listing: %d %s", code, body)
				}
				lat = append(lat, time.Since(t0))
			}
			cancel()
			wg.Wait()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
