package sshfiles

import (
	"slices"
	"testing"

	"sandview/model"
)

// TestAttachmentNames: an attachment's name in the tree is its safe
// name (no path, no control character, no leading dot), made unique
// within the mail.
func TestAttachmentNames(t *testing.T) {
	got := AttachmentNames([]model.Attachment{
		{Filename: "../../etc/passwd"}, {Filename: "report.pdf"}, {Filename: "report.pdf"},
		{Filename: "/abs/report.pdf"}, {Filename: "a\x1b[31mb\x00.txt"}, {Filename: ".."}, {ContentType: "text/calendar"},
	})
	want := []string{"passwd", "report.pdf", "report (1).pdf", "report (2).pdf", "ab.txt", "attachment", "calendar.ics"}
	if !slices.Equal(got, want) {
		t.Fatalf("AttachmentNames = %q, want %q", got, want)
	}
}

// TestResolveRefusesWhatIsNotInTheTree: paths that are not clean, hold a
// NUL, are too long or name no inbox of the user are not in the tree.
func TestResolveRefusesWhatIsNotInTheTree(t *testing.T) {
	var tr tree // no client: only paths refused before any inbox is looked up
	for _, p := range []string{"relative", "/a/../b", "//x", "/x\x00y", "/" + string(make([]byte, maxPathBytes))} {
		if _, err := tr.resolve(p); err != errNotFound {
			t.Errorf("resolve(%q) = %v, want not found", p, err)
		}
	}
	if n, err := tr.resolve("/"); err != nil || n.inbox != nil {
		t.Errorf("the root: %+v, %v", n, err)
	}
}
