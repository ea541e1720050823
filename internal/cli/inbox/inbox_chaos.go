package inbox

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/termtext"
)

// settingFlags are the flags that change the config (without them the
// command prints it).
var chaosSettingFlags = []string{"latency", "drop", "error", "permanent", "reset", "greylist", "blackhole", "for"}

func newInboxChaosCommand(g *cmdutil.Factory) *cobra.Command {
	var (
		f           model.ChaosSettings
		off, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "chaos [ADDRESS]",
		Short: "Show or set an inbox's chaos: make its SMTP delivery slow, dropped, refused or lost on purpose",
		Long: `Show or set an inbox's chaos (fault injection at the end of DATA). Without a
setting flag it prints the current config. Setting flags replace the whole
config: kinds not given are switched off. The server must run with --chaos.

  --latency 2s | 500ms-3s  delay the reply: exactly 2s, or drawn from 500ms up
                           to 3s (jitter); 0 to 60s
  --drop P                 close the connection instead of replying, with
                           probability P (0 to 1); --reset closes it abortively
  --error R                answer a 4xx at rate R (0 to 1); --permanent draws
                           from the 5xx replies too
  --greylist N             refuse each sender with 451 4.7.1 until its Nth
                           attempt (1 to 100; 2 refuses the first)
  --blackhole              answer 250 and keep nothing
  --for D                  switch chaos off after D (1s to 168h)
  --off                    switch chaos off now`,
		Example: `  sandview inbox chaos qa@sandbox.test --greylist 2 --for 10m
  sandview inbox chaos --latency 500ms-3s --error 0.3 --permanent
  sandview inbox chaos qa@sandbox.test --json
  sandview inbox chaos qa@sandbox.test --off`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set := false
			for _, name := range chaosSettingFlags {
				set = set || cmd.Flags().Changed(name)
			}
			var cfg model.ChaosConfig
			if set {
				if off {
					return cmdutil.UsageError{Msg: "--off switches chaos off: give it without setting flags"}
				}
				var err error
				if cfg, err = f.Config(time.Now()); err != nil {
					return cmdutil.UsageError{Msg: err.Error()}
				}
			}
			address := ""
			if len(args) == 1 {
				address = strings.TrimSpace(args[0])
			}
			return cmdutil.WithSession(cmd, g, func(s *cmdutil.Session) error {
				// Chaos is keyed by address: an inbox whose keys this
				// keystore lacks (another user's, --local's catch-all) is
				// reached all the same; without one, the keystore's only one.
				if address == "" {
					in, err := s.Inbox(cmd.Context(), "")
					if err != nil {
						return err
					}
					address = in.Address()
				}
				chaos := s.Client.Chaos(address)
				var err error
				switch {
				case off:
					err = chaos.Disable(cmd.Context())
					cfg = model.ChaosConfig{}
				case set:
					cfg, err = chaos.Set(cmd.Context(), cfg)
				default:
					cfg, err = chaos.Get(cmd.Context())
				}
				if err != nil {
					return err
				}
				if asJSON {
					return cmdutil.PrintJSON(cmd.OutOrStdout(), cfg)
				}
				return writeChaos(cmd.OutOrStdout(), address, cfg, time.Now())
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Latency, "latency", "", "delay the reply: 2s, or a range 500ms-3s (0 to 60s)")
	fl.StringVar(&f.Drop, "drop", "", "drop the connection with this probability (0 to 1)")
	fl.BoolVar(&f.Reset, "reset", false, "with --drop: reset the connection (RST) instead of closing it")
	fl.StringVar(&f.Error, "error", "", "answer an error at this rate (0 to 1): 4xx, and 5xx with --permanent")
	fl.BoolVar(&f.Permanent, "permanent", false, "with --error: draw from the permanent 5xx replies too")
	fl.StringVar(&f.Greylist, "greylist", "", "greylist: the attempt that passes (1 to 100; 2 refuses the first)")
	fl.BoolVar(&f.Blackhole, "blackhole", false, "accept mail and keep none")
	fl.StringVar(&f.For, "for", "", "switch chaos off after this long (1s to 168h)")
	fl.BoolVar(&off, "off", false, "switch chaos off")
	fl.BoolVar(&asJSON, "json", false, "print the config as JSON (the server's stored form)")
	return cmd
}

// writeChaos prints a config: its state, then one line per kind.
func writeChaos(w io.Writer, address string, cfg model.ChaosConfig, now time.Time) error {
	state := "off"
	switch {
	case cfg.ActiveAt(now):
		state = "on"
		if t, ok := cfg.ChaosExpiry(); ok {
			state = fmt.Sprintf("on until %s (%s left)", t.Local().Format("2006-01-02 15:04:05"), t.Sub(now).Round(time.Second))
		}
	case cfg.Enabled:
		state = "expired (acts as off)"
	}
	fmt.Fprintf(w, "chaos on %s: %s\n", termtext.SanitizeLine(address), state)
	var tab cmdutil.Table
	for _, k := range chaosKinds(cfg) {
		tab.Add("  "+k[0], k[1])
	}
	return tab.Write(w)
}

// chaosKinds describes each kind in the config: name and settings.
func chaosKinds(cfg model.ChaosConfig) [][2]string {
	var out [][2]string
	onOff := func(on bool) string {
		if on {
			return ""
		}
		return " (off)"
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if l := cfg.Latency; l != nil {
		delay := ms(l.MaxDelayMs).String()
		if l.Jitter && l.MinDelayMs < l.MaxDelayMs {
			delay = ms(l.MinDelayMs).String() + "-" + delay
		}
		out = append(out, [2]string{"latency", fmt.Sprintf("%s, probability %s%s", delay, num(l.Probability), onOff(l.Enabled))})
	}
	if d := cfg.ConnectionDrop; d != nil {
		how := "reset"
		if d.Graceful {
			how = "close"
		}
		out = append(out, [2]string{"drop", fmt.Sprintf("probability %s, %s%s", num(d.Probability), how, onOff(d.Enabled))})
	}
	if e := cfg.RandomError; e != nil {
		out = append(out, [2]string{"error", fmt.Sprintf("rate %s, %s%s", num(e.ErrorRate), strings.Join(e.ErrorTypes, "+"), onOff(e.Enabled))})
	}
	if g := cfg.Greylist; g != nil {
		out = append(out, [2]string{"greylist", fmt.Sprintf("passes attempt %s, window %s, by %s%s", num(g.MaxAttempts), ms(g.RetryWindowMs), g.TrackBy, onOff(g.Enabled))})
	}
	if b := cfg.Blackhole; b != nil {
		hooks := "no webhooks"
		if b.TriggerWebhooks {
			hooks = "webhooks sent"
		}
		out = append(out, [2]string{"blackhole", hooks + onOff(b.Enabled)})
	}
	return out
}
