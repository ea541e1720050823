// Package webhook is the `sandview webhook` commands: create, list, show,
// update, rotate, test and delete a server's webhooks, its templates and
// metrics, and listen for deliveries on a local receiver. The root command (internal/cli) adds them with
// NewCommand.
package webhook

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/termtext"
)

func NewCommand(g *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Manage webhooks and receive deliveries locally",
		Long: `Manage the server's webhooks: global ones (every inbox) by default, or the
webhooks of one inbox with --inbox. "listen" runs a local receiver that prints
each delivery and checks its signature.`,
	}
	var inbox string
	cmd.PersistentFlags().StringVar(&inbox, "inbox", "", "act on the webhooks of this inbox instead of the global ones")
	cmd.AddCommand(
		newWebhookListCommand(g, &inbox),
		newWebhookCreateCommand(g, &inbox),
		newWebhookShowCommand(g, &inbox),
		newWebhookUpdateCommand(g, &inbox),
		newWebhookDeleteCommand(g, &inbox),
		newWebhookTestCommand(g, &inbox),
		newWebhookRotateCommand(g, &inbox),
		newWebhookMetricsCommand(g),
		newWebhookTemplatesCommand(g),
		newWebhookListenCommand(),
	)
	return cmd
}

func printWebhook(w io.Writer, h model.Webhook) error {
	line := func(k, v string) { fmt.Fprintf(w, "%-12s %s\n", k+":", termtext.SanitizeLine(v)) }
	line("ID", h.ID)
	line("URL", h.URL)
	line("State", enabledWord(h.Enabled))
	scope := h.Scope
	if h.InboxEmail != "" {
		scope += " (" + h.InboxEmail + ")"
	}
	line("Scope", scope)
	line("Events", strings.Join(h.Events, ", "))
	tmpl := templateName(h.Template)
	if h.Template != nil && h.Template.ContentType != "" {
		tmpl += " (" + h.Template.ContentType + ")"
	}
	line("Template", tmpl)
	if h.Filter != nil {
		rules := make([]string, len(h.Filter.Rules))
		for i, r := range h.Filter.Rules {
			rules[i] = r.Field + " " + r.Operator
			if r.Operator != model.OpExists {
				rules[i] += fmt.Sprintf(" %q", r.Value)
			}
		}
		desc := h.Filter.Mode + ": " + strings.Join(rules, "; ")
		if h.Filter.RequireAuth != nil && *h.Filter.RequireAuth {
			desc += " (authenticated mail only)"
		}
		line("Filter", desc)
	}
	if h.Description != "" {
		line("Description", h.Description)
	}
	line("Created", h.CreatedAt.Local().Format(time.RFC1123))
	if h.LastDeliveryAt != nil {
		line("Last", h.LastDeliveryStatus+" at "+h.LastDeliveryAt.Local().Format(time.RFC1123))
	}
	if h.Stats != nil {
		line("Deliveries", fmt.Sprintf("%d total, %d successful, %d failed",
			h.Stats.TotalDeliveries, h.Stats.SuccessfulDeliveries, h.Stats.FailedDeliveries))
	}
	if h.Secret != "" {
		line("Secret", h.Secret)
	}
	return nil
}

func enabledWord(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

func templateName(t *model.WebhookTemplate) string {
	if t == nil {
		return model.TemplateDefault
	}
	return termtext.SanitizeLine(t.Type)
}
