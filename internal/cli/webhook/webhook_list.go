package webhook

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
)

func newWebhookListCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	return cmdutil.ResultCommand(g, &cobra.Command{
		Use:   "list",
		Short: "List webhooks (global, or of one inbox with --inbox)",
		Example: `  sandview webhook list
  sandview webhook list --inbox qa@sandbox.test --json`,
		Args: cobra.NoArgs,
	}, func(ctx context.Context, s *cmdutil.Session, _ []string) (model.WebhookList, error) {
		return s.Client.Webhooks.ListWebhooks(ctx, *inbox)
	}, func(w io.Writer, list model.WebhookList) error {
		return printWebhookList(w, list.Webhooks)
	})
}

func printWebhookList(w io.Writer, hooks []model.Webhook) error {
	if len(hooks) == 0 {
		fmt.Fprintln(w, "no webhooks")
		return nil
	}
	tab := &cmdutil.Table{}
	tab.Add("ID", "STATE", "EVENTS", "TEMPLATE", "LAST", "URL")
	for _, h := range hooks {
		last := "-"
		if h.LastDeliveryAt != nil {
			last = h.LastDeliveryStatus + " " + h.LastDeliveryAt.Local().Format("15:04:05")
		}
		tab.Add(h.ID, enabledWord(h.Enabled), strings.Join(h.Events, ","), templateName(h.Template), last, h.URL)
	}
	return tab.Write(w)
}
