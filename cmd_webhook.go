package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"sandview/client/webhookrecv"
	"sandview/model"
)

func newWebhookCommand(g *globalOptions) *cobra.Command {
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

func newWebhookListCommand(g *globalOptions, inbox *string) *cobra.Command {
	return resultCommand(g, &cobra.Command{
		Use:   "list",
		Short: "List webhooks (global, or of one inbox with --inbox)",
		Example: `  sandview webhook list
  sandview webhook list --inbox qa@sandbox.test --json`,
		Args: cobra.NoArgs,
	}, func(ctx context.Context, s *session, _ []string) (model.WebhookList, error) {
		return s.client.ListWebhooks(ctx, *inbox)
	}, func(w io.Writer, list model.WebhookList) error {
		return printWebhookList(w, list.Webhooks)
	})
}

func printWebhookList(w io.Writer, hooks []model.Webhook) error {
	if len(hooks) == 0 {
		fmt.Fprintln(w, "no webhooks")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tEVENTS\tTEMPLATE\tLAST\tURL")
	for _, h := range hooks {
		last := "-"
		if h.LastDeliveryAt != nil {
			last = h.LastDeliveryStatus + " " + h.LastDeliveryAt.Local().Format("15:04:05")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", model.SanitizeLine(h.ID), enabledWord(h.Enabled),
			model.SanitizeLine(strings.Join(h.Events, ",")), templateName(h.Template), model.SanitizeLine(last),
			model.SanitizeLine(h.URL))
	}
	return tw.Flush()
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
	return model.SanitizeLine(t.Type)
}

// webhookFlags are the settings create and update share.
type webhookFlags struct {
	url, template, customBody, contentType, filterMode, description string
	events, filters                                                 []string
	caseSensitive, requireAuth, enable, disable                     bool
	noTemplate, noFilter                                            bool
}

func (f *webhookFlags) register(cmd *cobra.Command, update bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.url, "endpoint", "", "the URL deliveries go to (https; http only where the server allows it)")
	fl.StringArrayVar(&f.events, "event", nil, "event to deliver: email.received, email.stored, email.deleted (repeatable)")
	fl.StringVar(&f.template, "template", "", "built-in template: default, slack, discord, teams, simple, notification, zapier")
	fl.StringVar(&f.customBody, "custom-body", "", "custom template: a file with JSON text and {{data.subject}}-style placeholders, or - for stdin")
	fl.StringVar(&f.contentType, "content-type", "", "Content-Type of the deliveries (with --template or --custom-body)")
	fl.StringArrayVar(&f.filters, "filter", nil, "filter rule field:operator:value, e.g. subject:contains:invoice or header.X-Priority:exists (repeatable)")
	fl.StringVar(&f.filterMode, "filter-mode", model.FilterModeAll, "how rules combine: all or any")
	fl.BoolVar(&f.caseSensitive, "case-sensitive", false, "compare the --filter values case-sensitively")
	fl.BoolVar(&f.requireAuth, "require-auth", false, "fire only for mail that passes SPF, DKIM and DMARC")
	fl.StringVar(&f.description, "description", "", "free text shown in lists (at most 500 characters)")
	if update {
		fl.BoolVar(&f.enable, "enable", false, "enable the webhook (resets its failure count)")
		fl.BoolVar(&f.disable, "disable", false, "disable the webhook")
		fl.BoolVar(&f.noTemplate, "no-template", false, "remove the template (deliveries use the default event JSON)")
		fl.BoolVar(&f.noFilter, "no-filter", false, "remove the filter")
	}
}

// templateFrom builds the template choice; nil when no template flag is set.
func (f *webhookFlags) templateFrom(in io.Reader) (*model.WebhookTemplate, error) {
	if f.template != "" && f.customBody != "" {
		return nil, usageError{"--template and --custom-body exclude each other"}
	}
	switch {
	case f.customBody != "":
		body, err := readBodyFile(f.customBody, in)
		if err != nil {
			return nil, err
		}
		return &model.WebhookTemplate{Type: model.TemplateCustom, Body: body, ContentType: f.contentType}, nil
	case f.template != "":
		return &model.WebhookTemplate{Type: f.template, ContentType: f.contentType}, nil
	case f.contentType != "":
		return nil, usageError{"--content-type needs --template or --custom-body"}
	}
	return nil, nil
}

func readBodyFile(name string, stdin io.Reader) (string, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(io.LimitReader(stdin, 1<<20))
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return "", fmt.Errorf("read custom template body: %w", err)
	}
	return string(data), nil
}

// filterFrom builds the filter; nil when no filter flag is set.
func (f *webhookFlags) filterFrom(cmd *cobra.Command) (*model.FilterConfig, error) {
	modeSet := cmd.Flags().Changed("filter-mode")
	authSet := cmd.Flags().Changed("require-auth")
	if len(f.filters) == 0 && !modeSet && !authSet {
		if cmd.Flags().Changed("case-sensitive") {
			return nil, usageError{"--case-sensitive applies to --filter rules"}
		}
		return nil, nil
	}
	if f.filterMode != model.FilterModeAll && f.filterMode != model.FilterModeAny {
		return nil, usageError{fmt.Sprintf("--filter-mode must be all or any, not %q", f.filterMode)}
	}
	cfg := &model.FilterConfig{Mode: f.filterMode, Rules: []model.FilterRule{}}
	if authSet {
		v := f.requireAuth
		cfg.RequireAuth = &v
	}
	for _, raw := range f.filters {
		rule, err := parseFilterRule(raw)
		if err != nil {
			return nil, err
		}
		rule.CaseSensitive = f.caseSensitive
		cfg.Rules = append(cfg.Rules, rule)
	}
	return cfg, nil
}

// parseFilterRule reads field:operator:value (the value may hold colons;
// exists needs none).
func parseFilterRule(raw string) (model.FilterRule, error) {
	parts := strings.SplitN(raw, ":", 3)
	if len(parts) == 2 && parts[1] == model.OpExists {
		parts = append(parts, "")
	}
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return model.FilterRule{}, usageError{fmt.Sprintf("--filter %q: want field:operator:value, e.g. from.address:domain:example.org", raw)}
	}
	return model.FilterRule{Field: parts[0], Operator: parts[1], Value: parts[2]}, nil
}

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
				wh, err := s.client.CreateWebhook(cmd.Context(), *inbox, req)
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

func printWebhook(w io.Writer, h model.Webhook) error {
	line := func(k, v string) { fmt.Fprintf(w, "%-12s %s\n", k+":", model.SanitizeLine(v)) }
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

func newWebhookShowCommand(g *globalOptions, inbox *string) *cobra.Command {
	return resultCommand(g, &cobra.Command{
		Use:   "show ID",
		Short: "Show one webhook with its secret and delivery stats",
		Example: `  sandview webhook show whk_0123…
  sandview webhook show whk_0123… --inbox qa@sandbox.test --json`,
		Args: cobra.ExactArgs(1),
	}, func(ctx context.Context, s *session, args []string) (model.Webhook, error) {
		return s.client.GetWebhook(ctx, *inbox, args[0])
	}, printWebhook)
}

func newWebhookUpdateCommand(g *globalOptions, inbox *string) *cobra.Command {
	var f webhookFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "update ID",
		Short: "Change a webhook: only the flags given are changed",
		Example: `  sandview webhook update whk_0123… --disable
  sandview webhook update whk_0123… --enable --endpoint https://hooks.example.org/v2
  sandview webhook update whk_0123… --template discord --no-filter`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := f.updateRequest(cmd)
			if err != nil {
				return err
			}
			return withSession(cmd, g, func(s *session) error {
				wh, err := s.client.UpdateWebhook(cmd.Context(), *inbox, args[0], req)
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
	f.register(cmd, true)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// updateRequest builds a PATCH body from the flags that were given.
func (f *webhookFlags) updateRequest(cmd *cobra.Command) (model.UpdateWebhookRequest, error) {
	var req model.UpdateWebhookRequest
	changed := cmd.Flags().Changed
	if f.enable && f.disable {
		return req, usageError{"--enable and --disable exclude each other"}
	}
	if changed("endpoint") {
		req.URL = &f.url
	}
	if changed("event") {
		req.Events = f.events
	}
	if changed("description") {
		req.Description = &f.description
	}
	if f.enable || f.disable {
		v := f.enable
		req.Enabled = &v
	}
	tmpl, err := f.templateFrom(cmd.InOrStdin())
	if err != nil {
		return req, err
	}
	switch {
	case f.noTemplate && tmpl != nil:
		return req, usageError{"--no-template excludes --template and --custom-body"}
	case f.noTemplate:
		req.Template = model.Null[model.WebhookTemplate]()
	case tmpl != nil:
		req.Template = model.Some(*tmpl)
	}
	filter, err := f.filterFrom(cmd)
	if err != nil {
		return req, err
	}
	switch {
	case f.noFilter && filter != nil:
		return req, usageError{"--no-filter excludes --filter, --filter-mode and --require-auth"}
	case f.noFilter:
		req.Filter = model.Null[model.FilterConfig]()
	case filter != nil:
		req.Filter = model.Some(*filter)
	}
	if req.URL == nil && req.Events == nil && req.Description == nil && req.Enabled == nil && !req.Template.Set && !req.Filter.Set {
		return req, usageError{"nothing to change: give at least one of --endpoint, --event, --template, --custom-body, --filter, --description, --enable, --disable, --no-template, --no-filter"}
	}
	return req, nil
}

func newWebhookDeleteCommand(g *globalOptions, inbox *string) *cobra.Command {
	return &cobra.Command{
		Use:     "delete ID",
		Short:   "Delete a webhook",
		Example: "  sandview webhook delete whk_0123…\n  sandview webhook delete whk_0123… --inbox qa@sandbox.test",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, g, func(s *session) error {
				if err := s.client.DeleteWebhook(cmd.Context(), *inbox, args[0]); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "deleted "+model.SanitizeLine(args[0]))
				return nil
			})
		},
	}
}

func newWebhookTestCommand(g *globalOptions, inbox *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "test ID",
		Short: "Make the server send a sample event to the webhook now",
		Long: `Make the server send a signed sample event to the webhook's URL and report
the endpoint's answer. Exits with status 1 when the endpoint did not answer 2xx.`,
		Example: "  sandview webhook test whk_0123…\n  sandview webhook test whk_0123… --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, g, func(s *session) error {
				res, err := s.client.TestWebhook(cmd.Context(), *inbox, args[0])
				if err != nil {
					return err
				}
				if err := printResult(cmd, asJSON, res, printTestResult); err != nil {
					return err
				}
				if !res.Success {
					return errors.New("the test delivery failed: " + firstNonEmpty(res.Error, fmt.Sprintf("status %d", res.StatusCode)))
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
		fmt.Fprintln(w, "Error:    "+model.SanitizeLine(res.Error))
	}
	if res.ResponseBody != "" {
		fmt.Fprintln(w, "Response: "+model.SanitizeLine(res.ResponseBody))
	}
	if len(res.PayloadSent) > 0 {
		fmt.Fprintln(w, "Payload sent:")
		fmt.Fprintln(w, model.SanitizeText(prettyJSON(res.PayloadSent)))
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

func newWebhookRotateCommand(g *globalOptions, inbox *string) *cobra.Command {
	return resultCommand(g, &cobra.Command{
		Use:     "rotate ID",
		Short:   "Replace a webhook's signing secret (the old one stays valid for an hour)",
		Example: "  sandview webhook rotate whk_0123…\n  sandview webhook rotate whk_0123… --json",
		Args:    cobra.ExactArgs(1),
	}, func(ctx context.Context, s *session, args []string) (model.RotateSecretResponse, error) {
		return s.client.RotateWebhookSecret(ctx, *inbox, args[0])
	}, func(w io.Writer, res model.RotateSecretResponse) error {
		_, err := fmt.Fprintf(w, "New secret:  %s\nOld secret valid until %s\n",
			model.SanitizeLine(res.Secret), res.PreviousSecretValidUntil.Local().Format(time.RFC1123))
		return err
	})
}

func newWebhookMetricsCommand(g *globalOptions) *cobra.Command {
	return resultCommand(g, &cobra.Command{
		Use:     "metrics",
		Short:   "Show webhook and delivery counts across the server",
		Example: "  sandview webhook metrics\n  sandview webhook metrics --json",
		Args:    cobra.NoArgs,
	}, func(ctx context.Context, s *session, _ []string) (model.WebhookMetrics, error) {
		return s.client.WebhookMetrics(ctx)
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
		return s.client.WebhookTemplates(ctx)
	}, func(w io.Writer, res model.WebhookTemplates) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tLABEL")
		for _, t := range res.Templates {
			fmt.Fprintf(tw, "%s\t%s\n", model.SanitizeLine(t.Value), model.SanitizeLine(t.Label))
		}
		return tw.Flush()
	})
}

// deliveryView is how `webhook listen --json` prints a delivery.
type deliveryView struct {
	ReceivedAt time.Time       `json:"receivedAt"`
	Event      string          `json:"event"`
	DeliveryID string          `json:"deliveryId"`
	Timestamp  string          `json:"timestamp"`
	AgeSeconds float64         `json:"ageSeconds"`
	Signature  string          `json:"signature"`
	Remote     string          `json:"remote"`
	Path       string          `json:"path"`
	Body       json.RawMessage `json:"body"`
}

func newWebhookListenCommand() *cobra.Command {
	var (
		addr      string
		secrets   []string
		asJSON    bool
		skipStale bool
	)
	cmd := &cobra.Command{
		Use:   "listen",
		Short: "Run a local webhook receiver and print each delivery as it lands",
		Long: `Run a local HTTP receiver and print each delivery: its event, delivery id,
age, whether the signature is valid, invalid, stale (older than 300 s) or
missing, and the body. Point a webhook at the printed URL (any path works).
Pass the webhook's secret with --secret (twice during a rotation). Stop with
Ctrl-C.`,
		Example: `  sandview webhook listen
  sandview webhook listen --addr 127.0.0.1:9000 --secret whsec_0123…
  sandview webhook listen --secret "$OLD" --secret "$NEW" --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			recv, err := webhookrecv.Listen(ctx, addr, webhookrecv.Options{Secrets: secrets, SkipStalenessCheck: skipStale})
			if err != nil {
				return err
			}
			defer recv.Close()
			out, status := cmd.OutOrStdout(), cmd.ErrOrStderr()
			fmt.Fprintf(status, "Listening on %s (Ctrl-C to stop)\n", recv.URL())
			if len(secrets) == 0 {
				fmt.Fprintln(status, "No --secret given: signatures are not checked.")
			}
			for d := range recv.Deliveries() {
				if err := printDelivery(out, d, asJSON); err != nil {
					return err
				}
			}
			if n := recv.Dropped(); n > 0 {
				fmt.Fprintf(status, "%d deliveries arrived faster than they could be printed and were skipped\n", n)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free port)")
	cmd.Flags().StringArrayVar(&secrets, "secret", nil, "signing secret to verify with (repeatable)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each delivery as one line of JSON")
	cmd.Flags().BoolVar(&skipStale, "no-staleness-check", false, "accept old timestamps (for replayed deliveries)")
	return cmd
}

func printDelivery(w io.Writer, d webhookrecv.Delivery, asJSON bool) error {
	if asJSON {
		body := json.RawMessage(d.Body)
		if !json.Valid(d.Body) {
			quoted, err := json.Marshal(string(d.Body))
			if err != nil {
				return fmt.Errorf("encode delivery body: %w", err)
			}
			body = quoted
		}
		return printJSONLine(w, deliveryView{
			ReceivedAt: d.ReceivedAt, Event: d.Event, DeliveryID: d.DeliveryID, Timestamp: d.Timestamp,
			AgeSeconds: d.Age.Seconds(), Signature: d.Signature.String(), Remote: d.Remote, Path: d.Path, Body: body,
		})
	}
	event := firstNonEmpty(d.Event, "(no event header)")
	id := firstNonEmpty(d.DeliveryID, "(no delivery id)")
	age := "-"
	if d.Timestamp != "" {
		age = d.Age.Round(time.Second).String()
	}
	fmt.Fprintf(w, "── %s  %s  %s  age %s  signature %s  from %s\n", d.ReceivedAt.Local().Format("15:04:05"),
		model.SanitizeLine(event), model.SanitizeLine(id), age, d.Signature, model.SanitizeLine(d.Remote))
	_, err := fmt.Fprintln(w, model.SanitizeText(d.PrettyBody))
	return err
}
