package webhook

import (
	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
)

func newWebhookCreateCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	var f webhookFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a webhook; prints its signing secret",
		Long: `Create a webhook. Without --event it delivers email.received. The answer
carries the signing secret (whsec_…) that verifies the deliveries.`,
		Example: `  sandview webhook create --endpoint https://hooks.example.org/mail
  sandview webhook create --endpoint https://hooks.slack.com/services/T/B/X --template slack \
      --filter subject:contains:invoice --filter from.address:domain:example.org --filter-mode any
  sandview webhook create --inbox qa@sandbox.test --endpoint http://127.0.0.1:9000/hook \
      --event email.received --event email.deleted --custom-body body.json --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.url == "" {
				return cmdutil.UsageError{Msg: "--endpoint is required"}
			}
			tmpl, err := f.templateFrom(cmd.InOrStdin())
			if err != nil {
				return err
			}
			filter, err := f.filterFrom(cmd)
			if err != nil {
				return err
			}
			events := f.events
			if len(events) == 0 {
				events = []string{model.EventEmailReceived}
			}
			req := model.CreateWebhookRequest{URL: f.url, Events: events, Template: tmpl, Filter: filter, Description: f.description}
			return cmdutil.WithSession(cmd, g, func(s *cmdutil.Session) error {
				wh, err := s.Client.Webhooks.CreateWebhook(cmd.Context(), *inbox, req)
				if err != nil {
					return err
				}
				if asJSON {
					return cmdutil.PrintJSON(cmd.OutOrStdout(), wh)
				}
				return printWebhook(cmd.OutOrStdout(), wh)
			})
		},
	}
	f.register(cmd, false)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
