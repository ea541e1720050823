package ui

import (
	"testing"

	"sandview/model"
)

// TestRemoteFetchCommands: the scp commands a remote session shows are
// what a POSIX shell runs as meant: each source after the host part,
// quoted when it holds more than safe characters, recursive for folders.
func TestRemoteFetchCommands(t *testing.T) {
	r := &Remote{Fetch: "scp -P 2222 box:"}
	for got, want := range map[string]string{
		r.FetchEmail("qa@sandbox.test", "e1"):                                                              "scp -P 2222 box:qa@sandbox.test/e1.eml .",
		r.FetchEmails([][2]string{{"a@x.test", "1"}, {"b@x.test", "2"}}):                                   "scp -P 2222 box:a@x.test/1.eml box:b@x.test/2.eml .",
		r.FetchFolder("qa@sandbox.test", "e1"):                                                             "scp -r -P 2222 box:qa@sandbox.test/e1 .",
		r.FetchFolders([][2]string{{"a@x.test", "1"}, {"b@x.test", "2"}}):                                  "scp -r -P 2222 box:a@x.test/1 box:b@x.test/2 .",
		r.FetchAttachment("qa@sandbox.test", "e1", []model.Attachment{{Filename: "it's a report.pdf"}}, 0): `scp -P 2222 box:'qa@sandbox.test/e1/it'\''s a report.pdf' .`,
	} {
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// TestConfineDropsTheClientsSettings: Confine leaves no shell, home,
// temporary folder or tmux, and its opener and runner refuse.
func TestConfineDropsTheClientsSettings(t *testing.T) {
	s := Settings{Shell: "/bin/sh", UserHome: "/root", TempDir: "/tmp/x", InTmux: true}
	s.Confine(&Remote{Fetch: "scp -P 1 box:"})
	if s.Shell != "" || s.UserHome != "" || s.TempDir != "" || s.InTmux || s.Remote == nil {
		t.Fatalf("Confine kept the client's settings: %+v", s)
	}
	if err := s.Open(t.Context(), "https://example.org"); err != ErrRemote {
		t.Fatalf("the opener: %v", err)
	}
	if _, err := s.Run(t.Context(), nil, "sh"); err != ErrRemote {
		t.Fatalf("the runner: %v", err)
	}
}
