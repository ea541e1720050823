package cli

import (
	"net"
	"sync/atomic"

	"sandview/server/httpapi"
)

// serverWelcome is what the page at / of `sandview serve` and `sandview
// --local` tells a browser: this binary's version, the listeners by the
// names teammates use (--advertise), and the SSH box once it runs.
type serverWelcome struct {
	version   string
	advertise string
	ssh       atomic.Pointer[string] // the box's ssh destination; nil: off
}

func newServerWelcome(advertise string) *serverWelcome {
	return &serverWelcome{version: readBuildVersion().Version, advertise: advertise}
}

// page is server.Config.Welcome.
func (w *serverWelcome) page(httpAddr, smtpAddr string) httpapi.Welcome {
	p := httpapi.Welcome{Version: w.version, URL: "http://" + advertised(httpAddr, w.advertise), SMTP: advertised(smtpAddr, w.advertise)}
	if dest := w.ssh.Load(); dest != nil {
		p.SSH = *dest
	}
	return p
}

// sshOn tells the page that the SSH box listens on boxAddr, reached at host.
func (w *serverWelcome) sshOn(host, boxAddr string) {
	dest := sshDestination(host, boxAddr)
	w.ssh.Store(&dest)
}

// sshDestination is the ssh command line's destination of the box on
// boxAddr reached at host: "-p PORT HOST".
func sshDestination(host, boxAddr string) string {
	_, port, _ := net.SplitHostPort(boxAddr)
	return "-p " + port + " " + host
}
