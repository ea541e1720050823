package cli

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

// resultCommand completes cmd (which has no RunE yet) as a command that
// connects, fetches one result and prints it: indented JSON with --json,
// else text.
func resultCommand[T any](g *globalOptions, cmd *cobra.Command,
	fetch func(context.Context, *session, []string) (T, error), text func(io.Writer, T) error) *cobra.Command {
	var asJSON bool
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return withSession(cmd, g, func(s *session) error {
			v, err := fetch(cmd.Context(), s, args)
			if err != nil {
				return err
			}
			return printResult(cmd, asJSON, v, text)
		})
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printResult prints v as indented JSON or, without --json, as text.
func printResult[T any](cmd *cobra.Command, asJSON bool, v T, text func(io.Writer, T) error) error {
	if asJSON {
		return printJSON(cmd.OutOrStdout(), v)
	}
	return text(cmd.OutOrStdout(), v)
}

// printJSON writes v as indented JSON (see writeJSON).
func printJSON(w io.Writer, v any) error { return writeJSON(w, v, "  ") }

// printJSONLine writes v as one line of JSON, for streams of objects.
func printJSONLine(w io.Writer, v any) error { return writeJSON(w, v, "") }

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

// jsonArray writes an indented JSON array one element at a time: the
// same bytes printJSON writes for the whole slice, without holding it.
type jsonArray struct {
	w io.Writer
	n int
}

// add writes the next element.
func (a *jsonArray) add(v any) error {
	out, err := a.encode(v)
	if err != nil {
		return err
	}
	return a.addEncoded(out)
}

// encode returns the text of an element for addEncoded; it is safe for
// concurrent use, so that a long list is encoded on several cores.
func (a *jsonArray) encode(v any) (string, error) {
	return encodeJSON(v, "  ", "  ")
}

// addEncoded writes the next element, encoded by encode.
func (a *jsonArray) addEncoded(out string) error {
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

// close ends the array.
func (a *jsonArray) close() error {
	end := "\n]\n"
	if a.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(a.w, end)
	return err
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	if t, ok := w.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal() // a remote terminal (an SSH session's)
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// oneLine folds an error message onto one line for stderr.
func oneLine(s string) string {
	return termtext.SanitizeLine(strings.Join(strings.Fields(s), " "))
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// table lays rows out in columns as wide as the terminal draws their text
// (termtext.Width: a CJK character or an emoji takes two cells, which
// text/tabwriter, counting runes, gets wrong), two spaces apart. Cells are
// sanitized on the way in; the last column is not padded.
type table struct {
	rows   [][]string
	widths []int
}

// add appends a row.
func (t *table) add(cells ...string) {
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

// write writes the rows.
func (t *table) write(w io.Writer) error {
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

// truncate shortens sanitized text to at most width cells, ending it with
// "…" when cut.
func truncate(s string, width int) string {
	return ansi.Truncate(s, width, "…")
}
