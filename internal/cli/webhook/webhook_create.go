package cli

import (
	"github.com/spf13/cobra"

	"sandview/model"
)

func newWebhookCreateCommand(g *globalOptions, inbox *string) *cobra.Command {
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
				return usageError{"--endpoint is required"}
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
			return withSession(cmd, g, func(s *session) error {
				wh, err := s.client.Webhooks.CreateWebhook(cmd.Context(), *inbox, req)
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(cmd.OutOrStdout(), wh)
				}
				return printWebhook(cmd.OutOrStdout(), wh)
			})
		},
	}
	f.register(cmd, false)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
