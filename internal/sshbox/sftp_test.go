package sshbox

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pkg/sftp"
	gossh "golang.org/x/crypto/ssh"
)

// memTree is a read-only tree of files in memory: path -> content.
type memTree map[string]string

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

type listing []os.FileInfo

func (l listing) ListAt(dst []os.FileInfo, off int64) (int, error) {
	if off >= int64(len(l)) {
		return 0, io.EOF
	}
	n := copy(dst, l[off:])
	if off+int64(n) == int64(len(l)) {
		return n, io.EOF
	}
	return n, nil
}

func (m memTree) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	content, ok := m[r.Filepath]
	if !ok {
		return nil, sftp.ErrSSHFxNoSuchFile
	}
	return strings.NewReader(content), nil
}

func (m memTree) Filewrite(*sftp.Request) (io.WriterAt, error) {
	return nil, sftp.ErrSSHFxPermissionDenied
}

func (m memTree) Filecmd(*sftp.Request) error { return sftp.ErrSSHFxPermissionDenied }

func (m memTree) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	switch {
	case r.Filepath == "/" && r.Method == "List":
		var l listing
		for p, c := range m {
			l = append(l, memInfo{name: strings.TrimPrefix(p, "/"), size: int64(len(c))})
		}
		return l, nil
	case r.Filepath == "/":
		return listing{memInfo{name: "/", dir: true}}, nil
	}
	if c, ok := m[r.Filepath]; ok && r.Method != "List" {
		return listing{memInfo{name: strings.TrimPrefix(r.Filepath, "/"), size: int64(len(c))}}, nil
	}
	return nil, sftp.ErrSSHFxNoSuchFile
}

func (m memTree) handlers() sftp.Handlers {
	return sftp.Handlers{FileGet: m, FilePut: m, FileCmd: m, FileList: m}
}

func TestSFTPServesTheGivenTree(t *testing.T) {
	alice := newAccount(t)
	tree := memTree{"/welcome.eml": "Subject: hi\r\n\r\nhello\r\n"}
	var seen []string
	tb := startBox(t, []string{alice.entry(`role="viewer"`, "alice")}, func(cfg *Config) {
		cfg.MaxSessionsPerUser = 1
		cfg.Files = func(ctx context.Context, s Session) sftp.Handlers {
			seen = append(seen, s.User.Name+" "+s.User.Role)
			return tree.handlers()
		}
	})
	c := tb.dial(t, alice)
	defer c.Close()
	client, err := sftp.NewClient(c)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := client.ReadDir("/")
	if err != nil || len(entries) != 1 || entries[0].Name() != "welcome.eml" {
		t.Fatalf("ReadDir: %v, %v", entries, err)
	}
	f, err := client.Open("/welcome.eml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(got) != tree["/welcome.eml"] {
		t.Fatalf("read %q, %v", got, err)
	}
	if _, err := client.Create("/new.txt"); err == nil || !errors.Is(err, os.ErrPermission) {
		t.Fatalf("a write into the read-only tree: %v", err)
	}
	if err := client.Remove("/welcome.eml"); err == nil {
		t.Fatal("a remove in the read-only tree succeeded")
	}
	// The sftp session counts against the limit of one session per key.
	if _, stderr, code := run(t, c, "whoami"); code != 1 || !strings.Contains(stderr, "per key") {
		t.Fatalf("a second session beside sftp: exit %d, %q", code, stderr)
	}
	client.Close()
	waitFor(t, "the sftp logout line", func() bool {
		return len(tb.log.lines("event=logout", "kind=sftp", "user=alice", "role=viewer", "fp="+alice.fp)) == 1
	})
	if len(tb.log.lines("event=login", "kind=sftp", "user=alice")) != 1 || len(seen) != 1 || seen[0] != "alice viewer" {
		t.Fatalf("login lines or Files calls wrong: %v\n%s", seen, tb.log)
	}
}

func TestNoFilesNoSFTP(t *testing.T) {
	alice := newAccount(t)
	tb := startBox(t, []string{alice.entry("", "alice")}, nil)
	c := tb.dial(t, alice)
	defer c.Close()
	if client, err := sftp.NewClient(c); err == nil {
		client.Close()
		t.Fatal("sftp was served without Files")
	}
}

func TestOpenSSHScpGoesThroughSFTP(t *testing.T) {
	scp, err := exec.LookPath("scp")
	if err != nil {
		t.Fatalf("OpenSSH's scp is needed (.ci/run installs openssh-client): %v", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "scp test")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	tree := memTree{"/welcome.eml": "Subject: hi\r\n\r\nhello\r\n"}
	tb := startBox(t, []string{line(signer.PublicKey(), "scp")}, func(cfg *Config) {
		cfg.Files = func(context.Context, Session) sftp.Handlers { return tree.handlers() }
	})
	_, port, _ := net.SplitHostPort(tb.Addr())
	copyOut := func(legacy bool) (string, error) {
		args := []string{"-F", "/dev/null", "-i", keyFile, "-P", port, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
			"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"}
		if legacy {
			args = append(args, "-O")
		}
		dst := filepath.Join(dir, fmt.Sprintf("copy-%v.eml", legacy))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, scp, append(args, "anyone@127.0.0.1:/welcome.eml", dst)...).CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("scp: %w: %s", err, out)
		}
		got, err := os.ReadFile(dst)
		return string(got), err
	}
	if got, err := copyOut(false); err != nil || got != tree["/welcome.eml"] {
		t.Fatalf("scp copied %q, %v", got, err)
	}
	if _, err := copyOut(true); err == nil {
		t.Fatal("scp -O (the legacy protocol) copied a file")
	}
	if len(tb.log.lines("event=login", "kind=sftp", "user=scp")) != 1 || len(tb.log.lines("event=refused", "reason=command")) != 1 {
		t.Fatalf("want one sftp login and one refused command:\n%s", tb.log)
	}
}
