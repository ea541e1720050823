package model

import "strings"

// Name is the attachment's file name, or, for a part sent without one, a
// name made from its type: an unnamed text/calendar part is "invite.ics"
// (a meeting request, method=REQUEST) or "calendar.ics", a message/rfc822
// part "message.eml", others "attachment" with their type's usual
// extension. Never blank; sanitize it before a terminal, make it safe
// before a file system.
func (a Attachment) Name() string {
	if strings.TrimSpace(a.Filename) != "" {
		return a.Filename
	}
	media, params, _ := strings.Cut(a.ContentType, ";")
	switch strings.ToLower(strings.TrimSpace(media)) {
	case "text/calendar", "application/ics":
		if strings.Contains(strings.ToLower(strings.ReplaceAll(params, " ", "")), "method=request") {
			return "invite.ics"
		}
		return "calendar.ics"
	case "message/rfc822", "message/global":
		return "message.eml"
	}
	if ext, ok := unnamedExtensions[strings.ToLower(strings.TrimSpace(media))]; ok {
		return "attachment" + ext
	}
	return "attachment"
}

// unnamedExtensions are the extensions of unnamed parts by type.
var unnamedExtensions = map[string]string{
	"text/plain": ".txt", "text/html": ".html", "text/csv": ".csv", "application/pdf": ".pdf",
	"application/json": ".json", "application/zip": ".zip", "image/png": ".png",
	"image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp", "image/svg+xml": ".svg",
}
