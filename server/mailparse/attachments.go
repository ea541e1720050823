package mailparse

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"

	"sandview/model"
)

const (
	dispositionAttachment = "attachment"
	dispositionInline     = "inline"
)

// fillAttachments lists the file parts in message order with their
// transfer-decoded content (no charset conversion: a file stays as sent).
func (m *Message) fillAttachments(root *part) {
	root.walk(func(p *part) {
		if isFile(root, p) {
			m.Content.Attachments = append(m.Content.Attachments, m.attachment(p))
		}
	})
}

func (m *Message) attachment(p *part) model.Attachment {
	content, aliased := m.decodeTransfer(p)
	if aliased {
		content = bytes.Clone(content)
	}
	sum := sha256.Sum256(content)
	return model.Attachment{
		Filename:           p.filename,
		ContentType:        validUTF8String(p.contentType),
		Size:               int64(len(content)),
		ContentID:          validUTF8String(p.contentID),
		ContentDisposition: disposition(p),
		Content:            content,
		Checksum:           hex.EncodeToString(sum[:]),
	}
}

// disposition names a part's disposition as the contract does: "attachment"
// or "inline". A part without a usable one is inline when it has a content
// id (an embedded image) and an attachment otherwise.
func disposition(p *part) string {
	switch p.disposition {
	case dispositionAttachment, dispositionInline:
		return p.disposition
	}
	if p.contentID != "" {
		return dispositionInline
	}
	return dispositionAttachment
}
