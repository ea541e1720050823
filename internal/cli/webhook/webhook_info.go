package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"sandview/model"
)

func newWebhookMetricsCommand(g *globalOptions) *cobra.Command {
	return resultCommand(g, &cobra.Command{
		Use:     "metrics",
		Short:   "Show webhook and delivery counts across the server",
		Example: "  sandview webhook metrics\n  sandview webhook metrics --json",
		Args:    cobra.NoArgs,
	}, func(ctx context.Context, s *session, _ []string) (model.WebhookMetrics, error) {
		return s.client.Webhooks.WebhookMetrics(ctx)
	}, func(w io.Writer, m model.WebhookMetrics) error {
		_, err := fmt.Fprintf(w, "Webhooks:   %d total (%d global, %d inbox), %d enabled\nDeliveries: %d total, %d successful, %d failed\n",
			m.Webhooks.Total, m.Webhooks.Global, m.Webhooks.Inbox, m.Webhooks.Enabled,
			m.Deliveries.Total, m.Deliveries.Successful, m.Deliveries.Failed)
		return err
	})
}

func newWebhookTemplatesCommand(g *globalOptions) *cobra.Command {
	return resultCommand(g, &cobra.Command{
		Use:     "templates",
		Short:   "List the built-in delivery templates",
		Example: "  sandview webhook templates\n  sandview webhook templates --json",
		Args:    cobra.NoArgs,
	}, func(ctx context.Context, s *session, _ []string) (model.WebhookTemplates, error) {
		return s.client.Webhooks.WebhookTemplates(ctx)
	}, func(w io.Writer, res model.WebhookTemplates) error {
		tab := &table{}
		tab.add("NAME", "LABEL")
		for _, t := range res.Templates {
			tab.add(t.Value, t.Label)
		}
		return tab.write(w)
	})
}
