// Package sshfiles serves one SSH user's mail as a read-only SFTP tree
// (github.com/pkg/sftp's request server), for `sftp` and OpenSSH's scp:
//
//	/ADDRESS/               an inbox of the user (its keystore's, and the catch-all)
//	/ADDRESS/ID.eml         an email's RFC 5322 source, as `sandview email raw` prints it
//	/ADDRESS/ID/NAME        an attachment, under the name `email attachments` saves it as
//
// Everything is read through the user's client (its own API key, so the
// server shows it only what it may see) and decrypted with the user's
// keystore only. Nothing can be written: a write, rename, removal,
// setstat, link or directory change answers "permission denied"; a path
// outside the tree, a name with a NUL, an overlong path and an inbox the
// user does not hold answer "no such file".
package sshfiles

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/sftp"

	"sandview/client"
	"sandview/model"
	"sandview/tui/desktop"
)

// Bounds of a path the tree looks at; longer ones are not in it.
const (
	maxPathBytes = 1024
	maxNameBytes = 255
)

// Handlers are the request server's handlers of the tree of the inboxes
// that c holds.
func Handlers(c *client.Client) sftp.Handlers {
	t := tree{c: c}
	return sftp.Handlers{FileGet: t, FilePut: t, FileCmd: t, FileList: t}
}

// Unavailable are handlers that answer every request with a failure: the
// tree could not be opened (why is the box's log's to say: it may name
// paths of the box).
func Unavailable() sftp.Handlers {
	t := unavailable{}
	return sftp.Handlers{FileGet: t, FilePut: t, FileCmd: t, FileList: t}
}

// tree is a user's read-only tree.
type tree struct{ c *client.Client }

// node is a parsed path: the root, an inbox, an email's source, an
// email's folder or one of its attachments.
type node struct {
	inbox *client.Inbox
	id    string // the email, when the path names one
	eml   bool   // ID.eml
	name  string // an attachment's name
}

// errNotFound is what a path outside the tree gets.
var errNotFound = sftp.ErrSSHFxNoSuchFile

// resolve parses p (absolute, cleaned by the request server) into a node
// of the tree, or errNotFound.
func (t tree) resolve(p string) (node, error) {
	if len(p) > maxPathBytes || strings.ContainsRune(p, 0) || !strings.HasPrefix(p, "/") || path.Clean(p) != p {
		return node{}, errNotFound
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if parts[0] == "" {
		return node{}, nil // the root
	}
	for _, part := range parts {
		if len(part) > maxNameBytes || part == "." || part == ".." {
			return node{}, errNotFound
		}
	}
	in, ok := t.c.Inbox(parts[0])
	if !ok || len(parts) > 3 {
		return node{}, errNotFound
	}
	n := node{inbox: in}
	if len(parts) == 1 {
		return n, nil
	}
	n.id = parts[1]
	if id, ok := strings.CutSuffix(parts[1], ".eml"); ok && len(parts) == 2 {
		n.id, n.eml = id, true
	}
	if n.id == "" || !validID(n.id) {
		return node{}, errNotFound
	}
	if len(parts) == 3 {
		n.name = parts[2]
	}
	return n, nil
}

// validID reports whether id may be an email's ID: printable, no space,
// no path separator.
func validID(id string) bool {
	return strings.IndexFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '/' || r == '\\' }) < 0
}

// Fileread opens an email's source or an attachment.
func (t tree) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	n, err := t.resolve(r.Filepath)
	if err != nil {
		return nil, err
	}
	content, _, err := t.content(r.Context(), n)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(content), nil
}

// content is a file's bytes and time; errNotFound for what is no file.
func (t tree) content(ctx context.Context, n node) ([]byte, time.Time, error) {
	switch {
	case n.eml:
		raw, err := n.inbox.Raw(ctx, n.id)
		if err != nil {
			return nil, time.Time{}, notFoundOr(err)
		}
		return raw, time.Time{}, nil
	case n.name != "":
		e, err := n.inbox.Email(ctx, n.id)
		if err != nil || e.Problem != "" {
			return nil, time.Time{}, notFoundOr(err)
		}
		for i, name := range AttachmentNames(e.Attachments) {
			if name == n.name {
				return e.Attachments[i].Content, e.ReceivedAt, nil
			}
		}
	}
	return nil, time.Time{}, errNotFound
}

// notFoundOr maps the client's not-found errors (an email deleted, one
// of another user) to errNotFound; others fail with a generic error.
func notFoundOr(err error) error {
	var inbox *client.InboxNotFoundError
	var email *client.EmailNotFoundError
	if err == nil || errors.As(err, &inbox) || errors.As(err, &email) {
		return errNotFound
	}
	return sftp.ErrSSHFxFailure
}

// Filewrite refuses every write: the tree is read only.
func (tree) Filewrite(*sftp.Request) (io.WriterAt, error) { return nil, sftp.ErrSSHFxPermissionDenied }

// Filecmd refuses every change: setstat, rename, remove, mkdir, rmdir,
// link and symlink.
func (tree) Filecmd(*sftp.Request) error { return sftp.ErrSSHFxPermissionDenied }

// Filelist lists a folder, or stats one path (Stat, Lstat); nothing in
// the tree is a link (Readlink).
func (t tree) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	n, err := t.resolve(r.Filepath)
	if err != nil {
		return nil, err
	}
	switch r.Method {
	case "List":
		return t.list(r.Context(), n)
	case "Stat", "Lstat":
		info, err := t.stat(r.Context(), n, path.Base(r.Filepath))
		if err != nil {
			return nil, err
		}
		return listing{info}, nil
	}
	return nil, sftp.ErrSSHFxOpUnsupported
}

// stat is the information of the node named base.
func (t tree) stat(ctx context.Context, n node, base string) (os.FileInfo, error) {
	if n.eml || n.name != "" {
		content, at, err := t.content(ctx, n)
		if err != nil {
			return nil, err
		}
		return fileInfo{name: base, size: int64(len(content)), at: at}, nil
	}
	if n.id != "" {
		if _, err := n.inbox.Email(ctx, n.id); err != nil {
			return nil, notFoundOr(err)
		}
	}
	return fileInfo{name: base, dir: true}, nil
}

// list is a folder's entries: the inboxes, an inbox's emails (ID.eml and
// the folder ID of each), an email's attachments. The sizes of an
// inbox's emails are not listed (0): each file's own stat gives it.
func (t tree) list(ctx context.Context, n node) (sftp.ListerAt, error) {
	var l listing
	switch {
	case n.inbox == nil:
		for _, in := range t.c.Inboxes() {
			l = append(l, fileInfo{name: in.Address(), dir: true})
		}
	case n.id == "":
		emails, err := n.inbox.Emails(ctx, client.ListOptions{})
		if err != nil && len(emails) == 0 {
			return nil, notFoundOr(err)
		}
		for _, e := range emails {
			if validID(e.ID) {
				l = append(l, fileInfo{name: e.ID + ".eml", at: e.ReceivedAt}, fileInfo{name: e.ID, dir: true, at: e.ReceivedAt})
			}
		}
	case !n.eml && n.name == "":
		e, err := n.inbox.Email(ctx, n.id)
		if err != nil || e.Problem != "" {
			return nil, notFoundOr(err)
		}
		for i, name := range AttachmentNames(e.Attachments) {
			l = append(l, fileInfo{name: name, size: int64(len(e.Attachments[i].Content)), at: e.ReceivedAt})
		}
	default:
		return nil, sftp.ErrSSHFxFailure // not a folder
	}
	return l, nil
}

// AttachmentNames are the file names of an email's attachments in the
// tree: each one's safe name (desktop.SafeName, as `email attachments`
// saves it), with " (1)", " (2)", … before the extension of a name
// already taken.
func AttachmentNames(attachments []model.Attachment) []string {
	names := make([]string, len(attachments))
	taken := map[string]bool{}
	for i, a := range attachments {
		base := desktop.SafeName(a.Name(), "attachment")
		ext := path.Ext(base)
		stem := strings.TrimSuffix(base, ext)
		name := base
		for k := 1; taken[name]; k++ {
			name = stem + " (" + strconv.Itoa(k) + ")" + ext
		}
		taken[name] = true
		names[i] = name
	}
	return names
}

// unavailable answers every request with a failure.
type unavailable struct{}

func (unavailable) Fileread(*sftp.Request) (io.ReaderAt, error) { return nil, sftp.ErrSSHFxFailure }
func (unavailable) Filewrite(*sftp.Request) (io.WriterAt, error) {
	return nil, sftp.ErrSSHFxPermissionDenied
}
func (unavailable) Filecmd(*sftp.Request) error                   { return sftp.ErrSSHFxPermissionDenied }
func (unavailable) Filelist(*sftp.Request) (sftp.ListerAt, error) { return nil, sftp.ErrSSHFxFailure }

// fileInfo is a node's information: files 0400, folders 0500.
type fileInfo struct {
	name string
	size int64
	dir  bool
	at   time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) ModTime() time.Time { return i.at }
func (i fileInfo) IsDir() bool        { return i.dir }
func (i fileInfo) Sys() any           { return nil }
func (i fileInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o500
	}
	return 0o400
}

// listing is a fixed list of entries.
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
