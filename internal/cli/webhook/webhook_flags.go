package webhook

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
)

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
		return nil, cmdutil.UsageError{Msg: "--template and --custom-body exclude each other"}
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
		return nil, cmdutil.UsageError{Msg: "--content-type needs --template or --custom-body"}
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
			return nil, cmdutil.UsageError{Msg: "--case-sensitive applies to --filter rules"}
		}
		return nil, nil
	}
	if f.filterMode != model.FilterModeAll && f.filterMode != model.FilterModeAny {
		return nil, cmdutil.UsageError{Msg: fmt.Sprintf("--filter-mode must be all or any, not %q", f.filterMode)}
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
		return model.FilterRule{}, cmdutil.UsageError{Msg: fmt.Sprintf("--filter %q: want field:operator:value, e.g. from.address:domain:example.org", raw)}
	}
	return model.FilterRule{Field: parts[0], Operator: parts[1], Value: parts[2]}, nil
}
