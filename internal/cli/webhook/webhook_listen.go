package webhook

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"sandview/client/webhookrecv"
	"sandview/internal/cli/cmdutil"
	"sandview/model/termtext"
)

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
		return cmdutil.PrintJSONLine(w, deliveryView{
			ReceivedAt: d.ReceivedAt, Event: d.Event, DeliveryID: d.DeliveryID, Timestamp: d.Timestamp,
			AgeSeconds: d.Age.Seconds(), Signature: d.Signature.String(), Remote: d.Remote, Path: d.Path, Body: body,
		})
	}
	event := cmdutil.FirstNonEmpty(d.Event, "(no event header)")
	id := cmdutil.FirstNonEmpty(d.DeliveryID, "(no delivery id)")
	age := "-"
	if d.Timestamp != "" {
		age = d.Age.Round(time.Second).String()
	}
	fmt.Fprintf(w, "── %s  %s  %s  age %s  signature %s  from %s\n", d.ReceivedAt.Local().Format("15:04:05"),
		termtext.SanitizeLine(event), termtext.SanitizeLine(id), age, d.Signature, termtext.SanitizeLine(d.Remote))
	_, err := fmt.Fprintln(w, termtext.Sanitize(d.PrettyBody))
	return err
}
