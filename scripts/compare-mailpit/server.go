package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sandview/server/servertest"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
)

// apiKey is sandview's API key in every run.
const apiKey = "compare-key"

// server is one server under measurement, started on its own data
// directory; a restart keeps the directory (and Mailpit's addresses).
type server struct {
	name, bin, dir string
	mailpit        bool
	dns            string // sandview: the DNS server (--dns) its checks ask
	cmd            *exec.Cmd
	// smtp, api and to: where mail goes, the HTTP base URL and the
	// recipient (sandview: a plain inbox without sender checks).
	smtp, api, to string
}

// start starts the server and waits until it takes mail; a first start
// of sandview also creates the inbox.
func (s *server) start() error {
	if s.mailpit {
		return s.startMailpit()
	}
	if err := s.startSandview(); err != nil {
		return err
	}
	if s.to == "" {
		return s.createInbox()
	}
	return nil
}

// startSandview starts `sandview serve --data` and reads its addresses
// from its banner.
func (s *server) startSandview() error {
	cmd := exec.Command(s.bin, "serve", "--data", filepath.Join(s.dir, "data"), "--home", filepath.Join(s.dir, "home"),
		"--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--api-key", apiKey, "--log-level", "error",
		"--max-emails-per-inbox", "10000000", "--max-store-bytes", "100000000000", "--dns", s.dns)
	cmd.Env = []string{} // no SVC_* variable of the caller changes the server
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	banner, err := servertest.ReadBanner(out)
	if err != nil {
		s.stop()
		return err
	}
	s.api, s.smtp = banner.API, banner.SMTP
	return nil
}

// createInbox creates the plain inbox without sender checks.
func (s *server) createInbox() error {
	req, err := http.NewRequest("POST", s.api+"/api/inboxes", strings.NewReader(`{"encryption":"plain","emailAuth":false}`))
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", apiKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var in struct {
		EmailAddress string `json:"emailAddress"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&in); err != nil || in.EmailAddress == "" {
		return fmt.Errorf("create inbox: %d %v", resp.StatusCode, err)
	}
	s.to = in.EmailAddress
	return nil
}

// startMailpit starts Mailpit on its own SQLite file and waits until its
// SMTP port answers.
func (s *server) startMailpit() error {
	if s.smtp == "" {
		s.smtp, s.api, s.to = freeAddr(), freeAddr(), "someone@example.com"
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	cmd := exec.Command(s.bin, "--database", filepath.Join(s.dir, "mailpit.db"), "--smtp", s.smtp, "--listen", s.api,
		"--max", "0", "--smtp-disable-rdns", "--disable-version-check", "--quiet")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if c, err := smtp.Dial(s.smtp); err == nil {
			c.Close()
			return nil
		}
	}
	s.stop()
	return errors.New("mailpit did not answer on SMTP")
}

// listable reports whether the server lists its stored mail: sandview's
// inbox /sync or Mailpit's message list answers 200.
func (s *server) listable() bool {
	url := "http://" + s.api + "/api/v1/messages?limit=1"
	if !s.mailpit {
		url = s.api + "/api/inboxes/" + s.to + "/sync"
	}
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return false
	}
	req.Header.Set("X-API-Key", apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == http.StatusOK
}

// stop stops the server with SIGINT and waits for it to exit.
func (s *server) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
	s.cmd = nil
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}
