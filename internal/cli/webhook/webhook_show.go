package webhook

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/termtext"
)

func newWebhookShowCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	return cmdutil.ResultCommand(g, &cobra.Command{
		Use:   "show ID",
		Short: "Show one webhook with its secret and delivery stats",
		Example: `  sandview webhook show whk_0123…
  sandview webhook show whk_0123… --inbox qa@sandbox.test --json`,
		Args: cobra.ExactArgs(1),
	}, func(ctx context.Context, s *cmdutil.Session, args []string) (model.Webhook, error) {
		return s.Client.Webhooks.GetWebhook(ctx, *inbox, args[0])
	}, printWebhook)
}

func newWebhookRotateCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	return cmdutil.ResultCommand(g, &cobra.Command{
		Use:     "rotate ID",
		Short:   "Replace a webhook's signing secret (the old one stays valid for an hour)",
		Example: "  sandview webhook rotate whk_0123…\n  sandview webhook rotate whk_0123… --json",
		Args:    cobra.ExactArgs(1),
	}, func(ctx context.Context, s *cmdutil.Session, args []string) (model.RotateSecretResponse, error) {
		return s.Client.Webhooks.RotateWebhookSecret(ctx, *inbox, args[0])
	}, func(w io.Writer, res model.RotateSecretResponse) error {
		_, err := fmt.Fprintf(w, "New secret:  %s\nOld secret valid until %s\n",
			termtext.SanitizeLine(res.Secret), res.PreviousSecretValidUntil.Local().Format(time.RFC1123))
		return err
	})
}

func newWebhookDeleteCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	return &cobra.Command{
		Use:     "delete ID",
		Short:   "Delete a webhook",
		Example: "  sandview webhook delete whk_0123…\n  sandview webhook delete whk_0123… --inbox qa@sandbox.test",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.WithSession(cmd, g, func(s *cmdutil.Session) error {
				if err := s.Client.Webhooks.DeleteWebhook(cmd.Context(), *inbox, args[0]); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "deleted "+termtext.SanitizeLine(args[0]))
				return nil
			})
		},
	}
}
