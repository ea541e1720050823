package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// The binders of setting.bind, one per kind of value.

func stringFlag(p *string, def string) func(*pflag.FlagSet, string, string) {
	return func(f *pflag.FlagSet, name, usage string) { f.StringVar(p, name, def, usage) }
}

func stringsFlag(p *[]string, def []string) func(*pflag.FlagSet, string, string) {
	return func(f *pflag.FlagSet, name, usage string) { f.StringSliceVar(p, name, def, usage) }
}

func boolFlag(p *bool, def bool) func(*pflag.FlagSet, string, string) {
	return func(f *pflag.FlagSet, name, usage string) { f.BoolVar(p, name, def, usage) }
}

func intFlag(p *int, def int) func(*pflag.FlagSet, string, string) {
	return func(f *pflag.FlagSet, name, usage string) { f.IntVar(p, name, def, usage) }
}

func int64Flag(p *int64, def int64) func(*pflag.FlagSet, string, string) {
	return func(f *pflag.FlagSet, name, usage string) { f.Int64Var(p, name, def, usage) }
}

func durationFlag(p *time.Duration, def time.Duration) func(*pflag.FlagSet, string, string) {
	return func(f *pflag.FlagSet, name, usage string) { f.DurationVar(p, name, def, usage) }
}

// atLeastFlag binds a whole number of at least min; unit names its kind
// in the help.
func atLeastFlag(p *int, def, min int, unit string) func(*pflag.FlagSet, string, string) {
	return func(f *pflag.FlagSet, name, usage string) {
		*p = def
		f.Var(atLeast{p: p, min: min, unit: unit}, name, usage)
	}
}

// millisFlag binds a duration given as a whole number of milliseconds, at
// least min.
func millisFlag(p *time.Duration, def time.Duration, min int) func(*pflag.FlagSet, string, string) {
	return func(f *pflag.FlagSet, name, usage string) {
		*p = def
		f.Var(millis{p: p, min: min}, name, usage)
	}
}

// byteSizeFlag binds a size in bytes written as GOMEMLIMIT is: a whole
// number with an optional B, KiB, MiB, GiB or TiB suffix.
func byteSizeFlag(p *int64, def int64) func(*pflag.FlagSet, string, string) {
	return func(f *pflag.FlagSet, name, usage string) {
		*p = def
		f.Var(byteSize{p}, name, usage)
	}
}

// byteSize is a pflag.Value: a size in bytes.
type byteSize struct{ p *int64 }

// byteUnits are byteSize's suffixes, longest first.
var byteUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

func (n byteSize) String() string {
	for _, u := range byteUnits {
		if v := *n.p; v != 0 && v%(1<<u.shift) == 0 {
			return strconv.FormatInt(v>>u.shift, 10) + u.suffix
		}
	}
	return "0"
}

func (n byteSize) Type() string { return "size" }

func (n byteSize) Set(text string) error {
	s := strings.TrimSpace(text)
	var shift uint
	for _, u := range byteUnits {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, shift = rest, u.shift
			break
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > math.MaxInt64>>shift {
		return fmt.Errorf("want a size such as 512MiB or 2GiB (B, KiB, MiB, GiB, TiB), got %q", text)
	}
	*n.p = v << shift
	return nil
}

// atLeast is a pflag.Value: a whole number of at least min.
type atLeast struct {
	p    *int
	min  int
	unit string
}

func (n atLeast) String() string { return strconv.Itoa(*n.p) }
func (n atLeast) Type() string   { return n.unit }

func (n atLeast) Set(s string) error {
	v, err := wholeAtLeast(s, n.min)
	if err != nil {
		return err
	}
	*n.p = v
	return nil
}

// wholeAtLeast reads a whole number of at least min.
func wholeAtLeast(s string, min int) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < min {
		return 0, fmt.Errorf("want a whole number of at least %d, got %q", min, s)
	}
	return v, nil
}

// millis is a pflag.Value: a duration in whole milliseconds, at least min.
type millis struct {
	p   *time.Duration
	min int
}

func (n millis) String() string { return strconv.FormatInt(n.p.Milliseconds(), 10) }
func (n millis) Type() string   { return "ms" }

func (n millis) Set(s string) error {
	v, err := wholeAtLeast(s, n.min)
	if err != nil {
		return err
	}
	*n.p = time.Duration(v) * time.Millisecond
	return nil
}

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
