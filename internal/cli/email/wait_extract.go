package email

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/extract"
)

// addExtractFlag registers wait's --extract.
func (o *WaitOptions) addExtractFlag(f *pflag.FlagSet) {
	f.StringVar(&o.extract, "extract", "", "print only this, one line a mail: link (the first link), code (a one-time code) or a regular expression (its first group, else the match); exit 1 when a mail has none")
}

// extractor reads --extract (the zero Extractor when it is not given).
func (o WaitOptions) extractor() (extract.Extractor, error) {
	if o.extract == "" {
		return extract.Extractor{}, nil
	}
	if o.asJSON {
		return extract.Extractor{}, cmdutil.UsageError{Msg: "--extract and --json do not go together: --extract prints only the value"}
	}
	x, err := extract.Parse(o.extract)
	if err != nil {
		return x, cmdutil.UsageError{Msg: "--extract " + err.Error()}
	}
	return x, nil
}

// printResult prints what a wait found: with --extract only the values,
// one a line, and an error (exit 1) naming the first mail that has none;
// else as printWaited does.
func (o WaitOptions) printResult(cmd *cobra.Command, emails []model.Email) error {
	if o.extract == "" {
		return printWaited(cmd, o.asJSON, emails)
	}
	x, err := o.extractor()
	if err != nil {
		return err
	}
	values := make([]string, 0, len(emails))
	for _, e := range emails {
		v, ok := x.From(e)
		if !ok {
			return fmt.Errorf("no %s in the email %q (%s)", x, e.Subject, e.ID)
		}
		values = append(values, v)
	}
	for _, v := range values {
		fmt.Fprintln(cmd.OutOrStdout(), v)
	}
	return nil
}

// wanted names what the wait waits for, for the timeout message: "1
// email to new-user@example.org with a subject matching "^Confirm"".
func (o WaitOptions) wanted() string {
	s := strconv.Itoa(o.Count) + " email(s)"
	if o.To != "" {
		s += " to " + strings.TrimSpace(o.To)
	}
	var with []string
	if o.Subject != "" {
		with = append(with, fmt.Sprintf("a subject matching %q", o.Subject))
	}
	if o.From != "" {
		with = append(with, fmt.Sprintf("a sender matching %q", o.From))
	}
	if len(with) > 0 {
		s += " with " + strings.Join(with, " and ")
	}
	return s
}

// shownEmail is one mail as `email show --json` and `wait --json` print
// it: View and the one-time codes in it, the likeliest first
// (model/extract.Codes; [] when there are none). Lists leave the codes out:
// finding them converts each HTML part to text.
type shownEmail struct {
	View
	Codes []string `json:"codes"`
}

func shownEmailOf(e model.Email) shownEmail {
	v := shownEmail{View: ViewOf(e), Codes: []string{}}
	if e.HasContent && e.Problem == "" {
		v.Codes = append(v.Codes, extract.Codes(e)...)
	}
	return v
}
