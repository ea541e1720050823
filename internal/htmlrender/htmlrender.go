// Package htmlrender draws an email's HTML part as the recipient's mail
// client would: a headless Chromium, found on the machine sandview runs on,
// renders the part with its inline (cid:) images at a given width, light or
// dark, into a PNG.
//
// The browser is walled in: JavaScript is off, and it has no network of its
// own (its requests are intercepted; a dead proxy and a resolver that finds
// nothing stand behind that). The page is handed to it from memory; remote
// content is refused unless the caller allows it for this mail, and then
// sandview fetches it through the link checker's address guard
// (client/netguard) and hands it to the page.
//
// One browser process is kept alive and shared by every caller (started on
// the first render, or ahead of it by Warm, in a fresh 0700 profile
// directory removed by Close);
// each render gets a fresh browser context of its own (no cookies, cache or
// storage shared with another render), disposed after it, and at most
// Config.MaxConcurrent renders run at a time.
package htmlrender

import (
	"context"
	"errors"
	"time"

	"sandview/model"
)

// Widths are the widths a mail is usually checked at: a phone, a mail
// client's reading pane, a desktop browser.
var Widths = []int{375, 600, 1024}

// Defaults of Config and Options.
const (
	DefaultWidth         = 600
	DefaultTimeout       = 5 * time.Second
	DefaultMaxConcurrent = 2
	// MaxHeight is the tallest picture taken, in CSS pixels: a longer mail
	// is cut there with a note.
	MaxHeight = 16384
	// maxHTMLBytes is the most of an HTML part rendered (Gmail clips a
	// mail at 102 KB; a larger part takes the browser seconds).
	maxHTMLBytes = 512 << 10
	// maxRemoteBytes is the most read of one remote resource.
	maxRemoteBytes = 5 << 20
)

// ErrNoBrowser is returned when no Chromium is found; its text is the one
// line telling the user how to get one.
var ErrNoBrowser = errors.New("no Chromium found to render the mail: install chromium, or give its path with --browser PATH or SANDVIEW_BROWSER")

// Fetcher fetches a remote resource the user allowed (an image, a style
// sheet, a font) for the page; client/linkcheck's Checker is one, under
// client/netguard's address rule.
type Fetcher interface {
	Fetch(ctx context.Context, url string, limit int64) (body []byte, contentType string, err error)
}

// Config sets up a Renderer.
type Config struct {
	// BrowserPath is the Chromium executable; "" means none (Render
	// returns ErrNoBrowser). internal/cli finds it (FindBrowser, the
	// --browser flag, SANDVIEW_BROWSER).
	BrowserPath string
	// MaxConcurrent is how many renders run at a time (0:
	// DefaultMaxConcurrent); others wait their turn.
	MaxConcurrent int
	// Timeout is how long a page may take to load (0: DefaultTimeout); a
	// page still loading then is pictured as it is, with a note in Cut.
	Timeout time.Duration
	// Fetcher fetches remote content when Options.AllowRemote is set; nil
	// refuses remote content even then.
	Fetcher Fetcher
	// NoSandbox runs Chromium without its sandbox (it refuses to start
	// with one as root); internal/cli sets it when running as root.
	NoSandbox bool
}

// Options are the choices of one render.
type Options struct {
	// Width is the viewport width in CSS pixels (0: DefaultWidth).
	Width int
	// Dark emulates prefers-color-scheme: dark.
	Dark bool
	// MaxHeight cuts the picture at this height (0: the full page, up to
	// the package's MaxHeight).
	MaxHeight int
	// AllowRemote lets the page load remote images, style sheets and fonts,
	// fetched by sandview through Config.Fetcher.
	AllowRemote bool
}

// Part is an inline part of a mail (a cid: image).
type Part struct {
	ContentType string
	Content     []byte
}

// Input is what is rendered: the HTML part and the inline parts it refers
// to by content id (without angle brackets).
type Input struct {
	HTML   string
	Inline map[string]Part
}

// InputOf is the HTML part of e with its attachments that have a content
// id.
func InputOf(e model.Email) Input {
	in := Input{HTML: e.HTML, Inline: map[string]Part{}}
	for _, a := range e.Attachments {
		if id := contentID(a.ContentID); id != "" {
			in.Inline[id] = Part{ContentType: a.ContentType, Content: a.Content}
		}
	}
	return in
}

// Result is a rendered mail.
type Result struct {
	// PNG is the picture, Width x Height device pixels (png.Decode it for
	// an image.Image).
	PNG           []byte
	Width, Height int
	// Cut is empty for the whole mail, else a note saying why the picture
	// is not all of it ("cut at 2000 px (--height)", "the mail did not
	// finish loading in 5s").
	Cut string
	// Blocked is how many requests of the page were refused (remote
	// content not allowed, or not fetched).
	Blocked int
}
