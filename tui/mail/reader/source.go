package reader

import (
	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// source is the RFC 5322 source of the open email, fetched once when the
// Raw or the Headers tab first shows it; both read it from here.
type source struct {
	id      string // the email it belongs to
	raw     []byte // as fetched: untrusted
	loaded  bool
	loading bool
	err     string
	version int // changes with the source, so the reader lays out again

	text    string   // raw, sanitized; made on first use
	headers []header // parsed from raw on first use
	parsed  bool
}

// reset forgets the source of the previous email.
func (s *source) reset(id string) {
	*s = source{id: id, version: s.version + 1}
}

// set stores the fetched source, or why it could not be fetched.
func (s *source) set(raw []byte, err error) {
	s.loading = false
	s.version++
	if err != nil {
		s.err = ui.ErrorText(err)
		return
	}
	s.raw, s.loaded = boundedSource(raw), true
}

// needed reports whether the source should be fetched.
func (s *source) needed() bool { return !s.loaded && !s.loading && s.err == "" }

// sanitized is the whole source made safe to print.
func (s *source) sanitized() string {
	if s.text == "" && len(s.raw) > 0 {
		s.text = termtext.Sanitize(string(s.raw))
	}
	return s.text
}

// parsedHeaders are the headers of the source, as sent.
func (s *source) parsedHeaders() []header {
	if !s.parsed {
		s.headers, s.parsed = parseHeaders(s.raw), true
	}
	return s.headers
}

// pending is what a tab shows instead of the source while it is not
// loaded (nil once it is).
func (s *source) pending(ctx *ui.Context, what string, width int) []string {
	st := ctx.Styles()
	switch {
	case s.err != "":
		return ui.WrapStyled(st.FieldError.Render, "Could not fetch the raw source: "+s.err, width)
	case !s.loaded:
		return []string{st.Muted.Render("Loading " + what + "…")}
	}
	return nil
}

// rawTab is the RFC 5322 source, wrapped once per width.
type rawTab struct {
	ctx     *ui.Context
	source  *source
	wrapped wrapCache
}

func (t *rawTab) label(_ model.Email, short bool) string { return shortName("Raw", short) }

func (t *rawTab) lines(m model.Email, width, _ int) tabContent {
	if p := t.source.pending(t.ctx, "the raw source", width); p != nil {
		return textContent(p)
	}
	return textContent(t.wrapped.get(m.ID, width, t.source.version, func() []string { return ui.Wrap(t.source.sanitized(), width) }))
}
