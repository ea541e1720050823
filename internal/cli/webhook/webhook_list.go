package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"sandview/model"
)

func newWebhookListCommand(g *globalOptions, inbox *string) *cobra.Command {
	return resultCommand(g, &cobra.Command{
		Use:   "list",
		Short: "List webhooks (global, or of one inbox with --inbox)",
		Example: `  sandview webhook list
  sandview webhook list --inbox qa@sandbox.test --json`,
		Args: cobra.NoArgs,
	}, func(ctx context.Context, s *session, _ []string) (model.WebhookList, error) {
		return s.client.Webhooks.ListWebhooks(ctx, *inbox)
	}, func(w io.Writer, list model.WebhookList) error {
		return printWebhookList(w, list.Webhooks)
	})
}

func printWebhookList(w io.Writer, hooks []model.Webhook) error {
	if len(hooks) == 0 {
		fmt.Fprintln(w, "no webhooks")
		return nil
	}
	tab := &table{}
	tab.add("ID", "STATE", "EVENTS", "TEMPLATE", "LAST", "URL")
	for _, h := range hooks {
		last := "-"
		if h.LastDeliveryAt != nil {
			last = h.LastDeliveryStatus + " " + h.LastDeliveryAt.Local().Format("15:04:05")
		}
		tab.add(h.ID, enabledWord(h.Enabled), strings.Join(h.Events, ","), templateName(h.Template), last, h.URL)
	}
	return tab.write(w)
}
