package cli

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestEverySettingReachesItsField: every setting of the table, given a
// value other than its default, changes exactly one field, and no two
// settings change the same one: a setting bound to nothing, or to a field
// another setting owns, fails here. The fields are those of the server's
// configuration (the core's, SMTP's and HTTP's settings embedded in it),
// of the webhook engine's configuration, or the command's own; each is
// named in the failure, so that a setting that lands in the wrong
// package's settings shows.
func TestEverySettingReachesItsField(t *testing.T) {
	fresh := func() (*serverSettings, *pflag.FlagSet) {
		var s serverSettings
		f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		s.registerServe(f)
		return &s, f
	}
	defaults, _ := fresh()
	base := leaves(reflect.ValueOf(defaults).Elem(), "")
	owner := map[string]string{} // field -> flag
	var s serverSettings
	for _, st := range s.table() {
		s, f := fresh()
		value, err := probe(f.Lookup(st.flag))
		if err != nil {
			t.Fatalf("--%s: %v", st.flag, err)
		}
		if err := f.Set(st.flag, value); err != nil {
			t.Fatalf("--%s=%s: %v", st.flag, value, err)
		}
		var changed []string
		for path, v := range leaves(reflect.ValueOf(s).Elem(), "") {
			if base[path] != v {
				changed = append(changed, path)
			}
		}
		slices.Sort(changed)
		if len(changed) != 1 {
			t.Errorf("--%s=%s changes %v, want exactly one field", st.flag, value, changed)
			continue
		}
		if other, ok := owner[changed[0]]; ok {
			t.Errorf("--%s and --%s both set %s", other, st.flag, changed[0])
		}
		owner[changed[0]] = st.flag
		t.Logf("--%s -> %s", st.flag, changed[0])
	}
	// The server's settings land in the server's configuration.
	for field, flag := range map[string]string{
		"cfg.SMTP.MaxConnsPerIP":   "smtp-max-conns-per-ip",
		"cfg.Options.Domains":      "domain",
		"cfg.HTTP.Dev":             "dev",
		"webhooks.MaxGlobal":       "webhook-max-global",
		"cfg.Options.SignAtIngest": "sign-at-ingest",
	} {
		if owner[field] != flag {
			t.Errorf("%s is set by --%s, want --%s", field, owner[field], flag)
		}
	}
}

// leaves are the printed values of v's fields, by path, through structs
// and pointers to structs.
func leaves(v reflect.Value, path string) map[string]string {
	out := map[string]string{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch {
		case v.Kind() == reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), strings.TrimPrefix(path+"."+v.Type().Field(i).Name, "."))
			}
		case v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct:
			walk(v.Elem(), path)
		default:
			out[path] = fmt.Sprint(v)
		}
	}
	walk(v, path)
	return out
}

// probe is a value of f other than its default, by the kind of value.
func probe(f *pflag.Flag) (string, error) {
	def := f.DefValue
	switch f.Value.Type() {
	case "string":
		return "probe", nil
	case "stringSlice":
		return "probe.test", nil
	case "bool":
		return strconv.FormatBool(def != "true"), nil
	case "int", "int64", "failures", "percent", "ms":
		n, err := strconv.ParseInt(def, 10, 64)
		return strconv.FormatInt(n+1, 10), err
	case "duration":
		d, err := time.ParseDuration(def)
		return (d + time.Second).String(), err
	case "size":
		return "1MiB", nil
	}
	return "", fmt.Errorf("no probe value for a %s", f.Value.Type())
}
