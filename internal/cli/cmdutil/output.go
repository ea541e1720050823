package cmdutil

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"sandview/model/termtext"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	json "github.com/go-json-experiment/json/v1"
	"github.com/spf13/cobra"
)

// ResultCommand completes cmd (which has no RunE yet) as a command that
// connects, fetches one result and prints it: indented JSON with --json,
// else text.
func ResultCommand[T any](g *Factory, cmd *cobra.Command,
	fetch func(context.Context, *Session, []string) (T, error), text func(io.Writer, T) error) *cobra.Command {
	var asJSON bool
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return WithSession(cmd, g, func(s *Session) error {
			v, err := fetch(cmd.Context(), s, args)
			if err != nil {
				return err
			}
			return PrintResult(cmd, asJSON, v, text)
		})
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// PrintResult prints v as indented JSON or, without --json, as text.
func PrintResult[T any](cmd *cobra.Command, asJSON bool, v T, text func(io.Writer, T) error) error {
	if asJSON {
		return PrintJSON(cmd.OutOrStdout(), v)
	}
	return text(cmd.OutOrStdout(), v)
}

// PrintJSON writes v as indented JSON (see writeJSON).
func PrintJSON(w io.Writer, v any) error { return writeJSON(w, v, "  ") }

// PrintJSONLine writes v as one line of JSON, for streams of objects.
func PrintJSONLine(w io.Writer, v any) error { return writeJSON(w, v, "") }

// writeJSON writes v as JSON followed by a newline, indented by indent
// (see encodeJSON).
func writeJSON(w io.Writer, v any, indent string) error {
	out, err := encodeJSON(v, "", indent)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, out+"\n")
	return err
}

// encodeJSON encodes v as JSON, indented by indent with every line after
// the first starting with prefix (one line when indent is empty), with
// jsonv1: encoding/json's output (Go 1.27's encoding/json is this code),
// made several times faster, which long lists need.
// Characters a terminal could act on (C1 and bidi controls, which
// encoding/json leaves as they are) are written as \u escapes, so the
// output is safe on a terminal and decodes to the same data.
func encodeJSON(v any, prefix, indent string) (string, error) {
	opts := json.DefaultOptionsV1()
	if indent != "" {
		// One pass, as MarshalIndent's marshal and reformat write it.
		opts = jsonv2.JoinOptions(opts, jsontext.Multiline(true), jsontext.WithIndentPrefix(prefix), jsontext.WithIndent(indent))
	}
	out, err := jsonv2.Marshal(v, opts)
	if err != nil {
		return "", fmt.Errorf("encode JSON: %w", err)
	}
	return escapeUnsafeRunes(out), nil
}

// escapeUnsafeRunes returns valid JSON text with the non-ASCII characters
// termtext.Sanitize drops written as \u escapes; ASCII text (most of it) is
// copied as it is.
func escapeUnsafeRunes(out []byte) string {
	if isASCII(out) {
		return string(out)
	}
	var b strings.Builder
	b.Grow(len(out))
	done := 0 // out[:done] is in b
	for i := 0; i < len(out); {
		if out[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(out[i:])
		if termtext.Sanitize(string(r)) == "" {
			b.Write(out[done:i])
			fmt.Fprintf(&b, "\\u%04x", r)
			done = i + size
		}
		i += size
	}
	b.Write(out[done:])
	return b.String()
}

// isASCII reports whether b is all ASCII, eight bytes at a time.
func isASCII(b []byte) bool {
	for ; len(b) >= 8; b = b[8:] {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// JSONArray writes an indented JSON array one element at a time: the
// same bytes PrintJSON writes for the whole slice, without holding it.
type JSONArray struct {
	w io.Writer
	n int
}

// NewJSONArray starts an array written to w.
func NewJSONArray(w io.Writer) *JSONArray { return &JSONArray{w: w} }

// Add writes the next element.
func (a *JSONArray) Add(v any) error {
	out, err := a.Encode(v)
	if err != nil {
		return err
	}
	return a.AddEncoded(out)
}

// Encode returns the text of an element for AddEncoded; it is safe for
// concurrent use, so that a long list is encoded on several cores.
func (a *JSONArray) Encode(v any) (string, error) {
	return encodeJSON(v, "  ", "  ")
}

// AddEncoded writes the next element, encoded by Encode.
func (a *JSONArray) AddEncoded(out string) error {
	sep := ",\n  "
	if a.n == 0 {
		sep = "[\n  "
	}
	a.n++
	if _, err := io.WriteString(a.w, sep); err != nil {
		return err
	}
	_, err := io.WriteString(a.w, out)
	return err
}

// Close ends the array.
func (a *JSONArray) Close() error {
	end := "\n]\n"
	if a.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(a.w, end)
	return err
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	if t, ok := w.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal() // a remote terminal (an SSH session's)
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// OneLine folds an error message onto one line for stderr.
func OneLine(s string) string {
	return termtext.SanitizeLine(strings.Join(strings.Fields(s), " "))
}

// FirstNonEmpty is the first of values that is not "".
func FirstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// Table lays rows out in columns as wide as the terminal draws their text
// (termtext.Width: a CJK character or an emoji takes two cells, which
// text/tabwriter, counting runes, gets wrong), two spaces apart. Cells are
// sanitized on the way in; the last column is not padded.
type Table struct {
	rows   [][]string
	widths []int
}

// Add appends a row.
func (t *Table) Add(cells ...string) {
	for i, c := range cells {
		c = termtext.SanitizeLine(c)
		cells[i] = c
		if i == len(t.widths) {
			t.widths = append(t.widths, 0)
		}
		t.widths[i] = max(t.widths[i], termtext.Width(c))
	}
	t.rows = append(t.rows, cells)
}

// Len is the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// Write writes the rows.
func (t *Table) Write(w io.Writer) error {
	var b strings.Builder
	for _, row := range t.rows {
		for i, c := range row {
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", t.widths[i]-termtext.Width(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Truncate shortens sanitized text to at most width cells, ending it with
// "…" when cut.
func Truncate(s string, width int) string {
	return ansi.Truncate(s, width, "…")
}
