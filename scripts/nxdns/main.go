// Command nxdns serves DNS on a loopback port and knows no name: every
// query is answered NXDOMAIN. The end-to-end scripts point sandview's
// checks at it (SVC_DNS), so they ask nothing beyond loopback. It prints
// its address, then serves until it is sent SIGINT or SIGTERM.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"sandview/server/dnsresolve/dnstest"
)

func main() {
	dns, err := dnstest.Serve(dnstest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "nxdns:", err)
		os.Exit(1)
	}
	defer dns.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Println(dns.Addr)
	<-ctx.Done()
}
