// Command compare-mailpit measures `sandview serve --data` against Mailpit
// (its SQLite store), side by side on fresh data directories and random
// loopback ports:
//
//   - ingest (the default): rounds of small mails (the 1.5 KB multipart
//     notification of the server benchmarks), spread over -conns SMTP
//     connections, each sending one mail after the other (one round trip
//     per command, the same go-smtp client for every server); it prints
//     mails/s per round with the load average.
//   - restart (-stored N): each server is filled with N mails and then
//     restarted -rounds times; it prints the time from exec until the
//     stored mail can be listed (sandview: the catch-all's /sync answers;
//     Mailpit: /api/v1/messages answers).
//
// Sender checks are off on sandview's inbox and reverse DNS off in
// Mailpit, and both keep every mail (no eviction), so both do the same
// work: receive, parse, store. -old adds a second sandview build (an
// earlier commit) to every measurement.
//
//	go install github.com/axllent/mailpit@v1.33.1
//	go run ./scripts/compare-mailpit                      # 3 rounds of 1,000 mails on 1 connection
//	go run ./scripts/compare-mailpit -conns 8 -mails 4000 -old /tmp/sandview-old
//	go run ./scripts/compare-mailpit -stored 10000 -rounds 5
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"sandview/server/dnsresolve/dnstest"
)

func main() {
	var o options
	flag.IntVar(&o.rounds, "rounds", 3, "rounds on each server, alternating")
	flag.IntVar(&o.mails, "mails", 1000, "mails per round")
	flag.IntVar(&o.conns, "conns", 1, "SMTP connections sending at once")
	flag.IntVar(&o.stored, "stored", 0, "measure restarts over this many stored mails instead of ingest")
	flag.StringVar(&o.bin, "sandview", "", "sandview binary (default: built from this checkout)")
	flag.StringVar(&o.old, "old", "", "a second sandview binary to measure too (an earlier build)")
	home, _ := os.UserHomeDir()
	flag.StringVar(&o.mailpit, "mailpit", filepath.Join(home, "go", "bin", "mailpit"), "Mailpit binary")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "compare-mailpit:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	rounds, mails, conns, stored int
	bin, old, mailpit            string
}

func run(o options) error {
	if o.rounds < 1 || o.mails < 1 || o.conns < 1 || o.stored < 0 {
		return fmt.Errorf("-rounds, -mails and -conns must be at least 1, -stored at least 0")
	}
	dir, err := os.MkdirTemp("", "compare-mailpit")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if o.bin == "" {
		o.bin = filepath.Join(dir, "sandview")
		if out, err := exec.Command("go", "build", "-o", o.bin, "sandview").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	// sandview's checks ask a DNS server on loopback that knows no name,
	// never the machine's resolver.
	dns, err := dnstest.Serve(dnstest.Options{})
	if err != nil {
		return err
	}
	defer dns.Close()
	kinds := []*server{{name: "sandview --data", bin: o.bin, dir: filepath.Join(dir, "new"), dns: dns.Addr}}
	if o.old != "" {
		kinds = append(kinds, &server{name: "sandview (old)", bin: o.old, dir: filepath.Join(dir, "old"), dns: dns.Addr})
	}
	kinds = append(kinds, &server{name: "mailpit (sqlite)", bin: o.mailpit, dir: filepath.Join(dir, "mailpit"), mailpit: true})
	for _, s := range kinds {
		if err := s.start(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		defer s.stop()
	}
	if o.stored > 0 {
		return restarts(o, kinds)
	}
	for r := 1; r <= o.rounds; r++ {
		for _, s := range kinds {
			rate, err := send(s, o.mails, o.conns, r*o.mails)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			fmt.Printf("round %d  %-17s %7.0f mails/s on %d connection(s)  (load %s)\n", r, s.name, rate, o.conns, loadAverage())
		}
	}
	return nil
}

// loadAverage is the machine's 1, 5 and 15 minute load.
func loadAverage() string {
	load, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(load))[:3], " ")
}
