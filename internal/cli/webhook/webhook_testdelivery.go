package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/termtext"
)

func newWebhookTestCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "test ID",
		Short: "Make the server send a sample event to the webhook now",
		Long: `Make the server send a signed sample event to the webhook's URL and report
the endpoint's answer. Exits with status 1 when the endpoint did not answer 2xx.`,
		Example: "  sandview webhook test whk_0123…\n  sandview webhook test whk_0123… --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.WithSession(cmd, g, func(s *cmdutil.Session) error {
				res, err := s.Client.Webhooks.TestWebhook(cmd.Context(), *inbox, args[0])
				if err != nil {
					return err
				}
				if err := cmdutil.PrintResult(cmd, asJSON, res, printTestResult); err != nil {
					return err
				}
				if !res.Success {
					return errors.New("the test delivery failed: " + cmdutil.FirstNonEmpty(res.Error, fmt.Sprintf("status %d", res.StatusCode)))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printTestResult(w io.Writer, res model.TestWebhookResponse) error {
	verdict := "failed"
	if res.Success {
		verdict = "succeeded"
	}
	fmt.Fprintf(w, "Test delivery %s", verdict)
	if res.StatusCode != 0 {
		fmt.Fprintf(w, ": status %d", res.StatusCode)
	}
	fmt.Fprintf(w, " in %d ms\n", res.ResponseTime)
	if res.Error != "" {
		fmt.Fprintln(w, "Error:    "+termtext.SanitizeLine(res.Error))
	}
	if res.ResponseBody != "" {
		fmt.Fprintln(w, "Response: "+termtext.SanitizeLine(res.ResponseBody))
	}
	if len(res.PayloadSent) > 0 {
		fmt.Fprintln(w, "Payload sent:")
		fmt.Fprintln(w, termtext.Sanitize(prettyJSON(res.PayloadSent)))
	}
	return nil
}

// prettyJSON indents JSON text; anything else is returned as it is.
func prettyJSON(data []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		return string(data)
	}
	return b.String()
}
