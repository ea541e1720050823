package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"sandview/model"
	"sandview/model/termtext"
)

func newWebhookShowCommand(g *globalOptions, inbox *string) *cobra.Command {
	return resultCommand(g, &cobra.Command{
		Use:   "show ID",
		Short: "Show one webhook with its secret and delivery stats",
		Example: `  sandview webhook show whk_0123…
  sandview webhook show whk_0123… --inbox qa@sandbox.test --json`,
		Args: cobra.ExactArgs(1),
	}, func(ctx context.Context, s *session, args []string) (model.Webhook, error) {
		return s.client.Webhooks.GetWebhook(ctx, *inbox, args[0])
	}, printWebhook)
}

func newWebhookRotateCommand(g *globalOptions, inbox *string) *cobra.Command {
	return resultCommand(g, &cobra.Command{
		Use:     "rotate ID",
		Short:   "Replace a webhook's signing secret (the old one stays valid for an hour)",
		Example: "  sandview webhook rotate whk_0123…\n  sandview webhook rotate whk_0123… --json",
		Args:    cobra.ExactArgs(1),
	}, func(ctx context.Context, s *session, args []string) (model.RotateSecretResponse, error) {
		return s.client.Webhooks.RotateWebhookSecret(ctx, *inbox, args[0])
	}, func(w io.Writer, res model.RotateSecretResponse) error {
		_, err := fmt.Fprintf(w, "New secret:  %s\nOld secret valid until %s\n",
			termtext.SanitizeLine(res.Secret), res.PreviousSecretValidUntil.Local().Format(time.RFC1123))
		return err
	})
}

func newWebhookDeleteCommand(g *globalOptions, inbox *string) *cobra.Command {
	return &cobra.Command{
		Use:     "delete ID",
		Short:   "Delete a webhook",
		Example: "  sandview webhook delete whk_0123…\n  sandview webhook delete whk_0123… --inbox qa@sandbox.test",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, g, func(s *session) error {
				if err := s.client.Webhooks.DeleteWebhook(cmd.Context(), *inbox, args[0]); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "deleted "+termtext.SanitizeLine(args[0]))
				return nil
			})
		},
	}
}
