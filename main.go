// Command sandview is a terminal inbox viewer for a receive-only email
// sandbox service: it shows test mail live, decrypts it, and reports its
// SPF/DKIM/DMARC/reverse-DNS results. It also ships the sandbox server itself
// (`sandview serve`, `sandview --local`) and a CLI for scripts; the commands
// live in internal/cli.
package main

import (
	"os"

	"sandview/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args, os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}
