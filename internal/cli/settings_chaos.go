package cli

import (
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// chaosFlag binds the chaos switch, read as the reference reads
// VSB_CHAOS_ENABLED (chaos.md, section 1): trimmed and lower-cased, true,
// 1, yes and on are on, anything else off; --chaos alone is on.
func chaosFlag(p *bool) func(*pflag.FlagSet, string, string) {
	return func(f *pflag.FlagSet, name, usage string) {
		*p = false
		f.Var(chaosSwitch{p}, name, usage)
		f.Lookup(name).NoOptDefVal = "true"
	}
}

// chaosSwitch is a pflag.Value: the chaos switch.
type chaosSwitch struct{ p *bool }

func (c chaosSwitch) String() string   { return strconv.FormatBool(*c.p) }
func (c chaosSwitch) Type() string     { return "bool" }
func (c chaosSwitch) IsBoolFlag() bool { return true }

func (c chaosSwitch) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes", "on":
		*c.p = true
	default:
		*c.p = false
	}
	return nil
}
