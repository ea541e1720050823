package webhook

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
)

func newWebhookMetricsCommand(g *cmdutil.Factory) *cobra.Command {
	return cmdutil.ResultCommand(g, &cobra.Command{
		Use:     "metrics",
		Short:   "Show webhook and delivery counts across the server",
		Example: "  sandview webhook metrics\n  sandview webhook metrics --json",
		Args:    cobra.NoArgs,
	}, func(ctx context.Context, s *cmdutil.Session, _ []string) (model.WebhookMetrics, error) {
		return s.Client.Webhooks.WebhookMetrics(ctx)
	}, func(w io.Writer, m model.WebhookMetrics) error {
		_, err := fmt.Fprintf(w, "Webhooks:   %d total (%d global, %d inbox), %d enabled\nDeliveries: %d total, %d successful, %d failed\n",
			m.Webhooks.Total, m.Webhooks.Global, m.Webhooks.Inbox, m.Webhooks.Enabled,
			m.Deliveries.Total, m.Deliveries.Successful, m.Deliveries.Failed)
		return err
	})
}

func newWebhookTemplatesCommand(g *cmdutil.Factory) *cobra.Command {
	return cmdutil.ResultCommand(g, &cobra.Command{
		Use:     "templates",
		Short:   "List the built-in delivery templates",
		Example: "  sandview webhook templates\n  sandview webhook templates --json",
		Args:    cobra.NoArgs,
	}, func(ctx context.Context, s *cmdutil.Session, _ []string) (model.WebhookTemplates, error) {
		return s.Client.Webhooks.WebhookTemplates(ctx)
	}, func(w io.Writer, res model.WebhookTemplates) error {
		tab := &cmdutil.Table{}
		tab.Add("NAME", "LABEL")
		for _, t := range res.Templates {
			tab.Add(t.Value, t.Label)
		}
		return tab.Write(w)
	})
}
