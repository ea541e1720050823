// Package chaos is the per-inbox fault injection of the sandbox server
// (the chaos spec): the request form of a ChaosConfig validated
// and normalized (Parse), and what a config does to one message at the end
// of its DATA (Decide), with the reply lines of each kind. It is pure: the
// randomness and the greylisting state are given by its caller.
package chaos

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"sandview/model"
)

// Defaults of the request form's optional fields (chaos.md, section 3).
const (
	DefaultMinDelayMs    = 500
	DefaultMaxDelayMs    = 10000
	MaxDelayMs           = 60000
	DefaultErrorRate     = 0.1
	DefaultRetryWindowMs = 300000
	DefaultMaxAttempts   = 2
)

// Parse validates and normalizes a ChaosConfig in its request form, data
// (one JSON value), into its stored form. On failure it returns the
// messages of a 400 answer, in the reference's words; prefix ("" or
// "chaos.") goes before every path.
func Parse(data []byte, prefix string) (model.ChaosConfig, []string) {
	p := parser{prefix: prefix}
	var cfg model.ChaosConfig
	obj, ok := object(data)
	if !ok {
		p.fail("", "enabled", "must be a boolean value")
		return cfg, p.errs
	}
	known := map[string]bool{}
	field := func(name string) json.RawMessage { known[name] = true; return obj[name] }
	cfg.Enabled = p.boolean("", "enabled", field("enabled"), nil)
	if raw := field("expiresAt"); isNull(raw) {
		cfg.ExpiresAtNull = raw != nil
	} else {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			p.fail("", "expiresAt", "must be a string")
		} else {
			cfg.ExpiresAt = &s
		}
	}
	if sub, ok := p.sub("latency", field("latency")); ok {
		l := &model.ChaosLatency{}
		l.Enabled = p.boolean("latency", "enabled", sub.take("enabled"), nil)
		l.MinDelayMs = p.number("latency", "minDelayMs", sub.take("minDelayMs"), DefaultMinDelayMs, 0, -1)
		l.MaxDelayMs = p.number("latency", "maxDelayMs", sub.take("maxDelayMs"), DefaultMaxDelayMs, 0, MaxDelayMs)
		l.Jitter = p.boolean("latency", "jitter", sub.take("jitter"), ptr(true))
		l.Probability = p.number("latency", "probability", sub.take("probability"), 1, 0, 1)
		p.unknown("latency", sub)
		cfg.Latency = l
	}
	if sub, ok := p.sub("connectionDrop", field("connectionDrop")); ok {
		d := &model.ChaosConnectionDrop{}
		d.Enabled = p.boolean("connectionDrop", "enabled", sub.take("enabled"), nil)
		d.Probability = p.number("connectionDrop", "probability", sub.take("probability"), 1, 0, 1)
		d.Graceful = p.boolean("connectionDrop", "graceful", sub.take("graceful"), ptr(true))
		p.unknown("connectionDrop", sub)
		cfg.ConnectionDrop = d
	}
	if sub, ok := p.sub("randomError", field("randomError")); ok {
		e := &model.ChaosRandomError{}
		e.Enabled = p.boolean("randomError", "enabled", sub.take("enabled"), nil)
		e.ErrorRate = p.number("randomError", "errorRate", sub.take("errorRate"), DefaultErrorRate, 0, 1)
		e.ErrorTypes = p.errorTypes(sub.take("errorTypes"))
		p.unknown("randomError", sub)
		cfg.RandomError = e
	}
	if sub, ok := p.sub("greylist", field("greylist")); ok {
		g := &model.ChaosGreylist{}
		g.Enabled = p.boolean("greylist", "enabled", sub.take("enabled"), nil)
		g.RetryWindowMs = p.number("greylist", "retryWindowMs", sub.take("retryWindowMs"), DefaultRetryWindowMs, 0, -1)
		g.MaxAttempts = p.number("greylist", "maxAttempts", sub.take("maxAttempts"), DefaultMaxAttempts, 1, -1)
		g.TrackBy = p.oneOf("greylist", "trackBy", sub.take("trackBy"), model.ChaosTrackIPSender, model.ChaosTrackIP, model.ChaosTrackSender, model.ChaosTrackIPSender)
		p.unknown("greylist", sub)
		cfg.Greylist = g
	}
	if sub, ok := p.sub("blackhole", field("blackhole")); ok {
		b := &model.ChaosBlackhole{}
		b.Enabled = p.boolean("blackhole", "enabled", sub.take("enabled"), nil)
		b.TriggerWebhooks = p.boolean("blackhole", "triggerWebhooks", sub.take("triggerWebhooks"), ptr(false))
		p.unknown("blackhole", sub)
		cfg.Blackhole = b
	}
	p.unknown("", fields{obj: obj, seen: known})
	if len(p.errs) > 0 {
		return model.ChaosConfig{}, p.errs
	}
	return cfg, nil
}

// parser collects the validation messages.
type parser struct {
	prefix string
	errs   []string
}

// fail records "<prefix><path>.<field> <text>".
func (p *parser) fail(path, field, text string) {
	name := field
	if path != "" {
		name = path + "." + field
	}
	p.errs = append(p.errs, p.prefix+name+" "+text)
}

// fields is a sub-object's properties and those read so far.
type fields struct {
	obj  map[string]json.RawMessage
	seen map[string]bool
}

func (f fields) take(name string) json.RawMessage {
	f.seen[name] = true
	return f.obj[name]
}

// sub reads the sub-object name: false when it is absent or null (or not
// an object, which is refused).
func (p *parser) sub(name string, raw json.RawMessage) (fields, bool) {
	if isNull(raw) {
		return fields{}, false
	}
	obj, ok := object(raw)
	if !ok {
		p.errs = append(p.errs, p.prefix+"nested property "+name+" must be either object or array")
		return fields{}, false
	}
	return fields{obj: obj, seen: map[string]bool{}}, true
}

// unknown refuses the properties of f not read.
func (p *parser) unknown(path string, f fields) {
	for _, name := range slices.Sorted(maps.Keys(f.obj)) {
		if !f.seen[name] {
			p.fail(path, "property", name+" should not exist")
		}
	}
}

// boolean reads a boolean; def nil makes it required.
func (p *parser) boolean(path, field string, raw json.RawMessage, def *bool) bool {
	if isNull(raw) && def != nil {
		return *def
	}
	var v bool
	if isNull(raw) || json.Unmarshal(raw, &v) != nil {
		p.fail(path, field, "must be a boolean value")
	}
	return v
}

// number reads an optional number within [min, max] (max < 0: none).
func (p *parser) number(path, field string, raw json.RawMessage, def, min, max float64) float64 {
	if isNull(raw) {
		return def
	}
	var v float64
	if json.Unmarshal(raw, &v) != nil {
		p.fail(path, field, "must be a number conforming to the specified constraints")
		return 0
	}
	if v < min {
		p.fail(path, field, "must not be less than "+format(min))
	}
	if max >= 0 && v > max {
		p.fail(path, field, "must not be greater than "+format(max))
	}
	return v
}

// oneOf reads an optional string among allowed.
func (p *parser) oneOf(path, field string, raw json.RawMessage, def string, allowed ...string) string {
	if isNull(raw) {
		return def
	}
	var v string
	if json.Unmarshal(raw, &v) != nil || !slices.Contains(allowed, v) {
		p.fail(path, field, "must be one of the following values: "+strings.Join(allowed, ", "))
	}
	return v
}

// errorTypes reads randomError.errorTypes.
func (p *parser) errorTypes(raw json.RawMessage) []string {
	if isNull(raw) {
		return []string{model.ChaosErrorTemporary}
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		p.fail("randomError", "errorTypes", "must be an array")
		return nil
	}
	out := make([]string, 0, len(items))
	for _, item := range items {
		var v string
		if json.Unmarshal(item, &v) != nil || (v != model.ChaosErrorTemporary && v != model.ChaosErrorPermanent) {
			p.errs = append(p.errs, p.prefix+"randomError.each value in errorTypes must be one of the following values: temporary, permanent")
			return nil
		}
		out = append(out, v)
	}
	return out
}

// object decodes a JSON object's properties.
func object(data []byte) (map[string]json.RawMessage, bool) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, false
	}
	var obj map[string]json.RawMessage
	return obj, json.Unmarshal(data, &obj) == nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

func format(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func ptr[T any](v T) *T { return &v }
