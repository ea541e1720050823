package webhook

import (
	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
)

func newWebhookUpdateCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
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
			return cmdutil.WithSession(cmd, g, func(s *cmdutil.Session) error {
				wh, err := s.Client.Webhooks.UpdateWebhook(cmd.Context(), *inbox, args[0], req)
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
	f.register(cmd, true)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// updateRequest builds a PATCH body from the flags that were given.
func (f *webhookFlags) updateRequest(cmd *cobra.Command) (model.UpdateWebhookRequest, error) {
	var req model.UpdateWebhookRequest
	changed := cmd.Flags().Changed
	if f.enable && f.disable {
		return req, cmdutil.UsageError{Msg: "--enable and --disable exclude each other"}
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
		return req, cmdutil.UsageError{Msg: "--no-template excludes --template and --custom-body"}
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
		return req, cmdutil.UsageError{Msg: "--no-filter excludes --filter, --filter-mode and --require-auth"}
	case f.noFilter:
		req.Filter = model.Null[model.FilterConfig]()
	case filter != nil:
		req.Filter = model.Some(*filter)
	}
	if req.URL == nil && req.Events == nil && req.Description == nil && req.Enabled == nil && !req.Template.Set && !req.Filter.Set {
		return req, cmdutil.UsageError{Msg: "nothing to change: give at least one of --endpoint, --event, --template, --custom-body, --filter, --description, --enable, --disable, --no-template, --no-filter"}
	}
	return req, nil
}
