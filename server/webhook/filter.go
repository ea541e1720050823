package webhook

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"sandview/model"
)

// compiledFilter is a validated FilterConfig, its regular expressions
// compiled once.
type compiledFilter struct {
	all         bool
	requireAuth bool
	rules       []compiledRule
}

type compiledRule struct {
	field         string // lowercased; "header.<name>" keeps the lowercased header name
	operator      string
	value         string // lowercased unless caseSensitive (domain: always lowercased, without "@")
	caseSensitive bool
	re            *regexp.Regexp
}

// filterError is a filter the contract refuses: malformed (400), or invalid
// when a regular expression does not compile (422 in the contract).
type filterError struct {
	invalid bool
	msg     string
}

func (e *filterError) Error() string { return e.msg }

// compileFilter validates f and resolves requireAuth against the server
// default (the returned config carries the effective value).
func compileFilter(f model.FilterConfig, requireAuthDefault bool) (*compiledFilter, model.FilterConfig, error) {
	bad := func(format string, args ...any) error {
		return &filterError{msg: fmt.Sprintf(format, args...)}
	}
	switch f.Mode {
	case model.FilterModeAll, model.FilterModeAny:
	case "":
		return nil, f, bad("filter.mode is required: all or any")
	default:
		return nil, f, bad("filter.mode must be all or any, not %q", f.Mode)
	}
	if len(f.Rules) > maxRules {
		return nil, f, bad("filter.rules holds %d rules; at most %d are allowed", len(f.Rules), maxRules)
	}
	requireAuth := requireAuthDefault
	if f.RequireAuth != nil {
		requireAuth = *f.RequireAuth
	}
	out := model.FilterConfig{Mode: f.Mode, Rules: slices.Clone(f.Rules), RequireAuth: &requireAuth}
	if out.Rules == nil {
		out.Rules = []model.FilterRule{}
	}
	cf := &compiledFilter{all: f.Mode == model.FilterModeAll, requireAuth: requireAuth}
	for i, r := range f.Rules {
		field := strings.TrimSpace(r.Field)
		if !validField(field) {
			return nil, f, bad("filter.rules[%d].field %q is not filterable: use one of %s or header.<Name>",
				i, r.Field, strings.Join(model.FilterFields(), ", "))
		}
		if !slices.Contains(model.FilterOperators(), r.Operator) {
			return nil, f, bad("filter.rules[%d].operator %q is unknown: use one of %s",
				i, r.Operator, strings.Join(model.FilterOperators(), ", "))
		}
		if utf8.RuneCountInString(r.Value) > maxRuleValueLen {
			return nil, f, bad("filter.rules[%d].value is longer than %d characters", i, maxRuleValueLen)
		}
		if r.Value == "" && r.Operator != model.OpExists {
			return nil, f, bad("filter.rules[%d].value is required for operator %s", i, r.Operator)
		}
		out.Rules[i].Field = field
		cr := compiledRule{field: strings.ToLower(field), operator: r.Operator, caseSensitive: r.CaseSensitive, value: r.Value}
		switch {
		case r.Operator == model.OpRegex:
			expr := r.Value
			if !r.CaseSensitive {
				expr = "(?i)" + expr
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, f, &filterError{invalid: true, msg: fmt.Sprintf("filter.rules[%d].value is not a valid regular expression: %v", i, err)}
			}
			cr.re = re
		case r.Operator == model.OpDomain:
			cr.value = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(r.Value), "@"))
		case !r.CaseSensitive:
			cr.value = strings.ToLower(r.Value)
		}
		cf.rules = append(cf.rules, cr)
	}
	return cf, out, nil
}

func validField(field string) bool {
	if name, ok := strings.CutPrefix(strings.ToLower(field), "header."); ok {
		return name != "" && !strings.ContainsAny(name, " \t\r\n:")
	}
	return slices.Contains(model.FilterFields(), field)
}

// needsContent reports whether the verdict depends on the email.
func (f *compiledFilter) needsContent() bool {
	return f != nil && (f.requireAuth || len(f.rules) > 0)
}

// match judges an email.received payload whose headers are unabridged,
// with lowercase names.
func (f *compiledFilter) match(d *model.EmailReceivedData, verdict model.AuthVerdict) bool {
	if f == nil {
		return true
	}
	if f.requireAuth && verdict != model.VerdictPassed {
		return false
	}
	if len(f.rules) == 0 {
		return true
	}
	for _, r := range f.rules {
		ok := r.match(d)
		if f.all && !ok {
			return false
		}
		if !f.all && ok {
			return true
		}
	}
	return f.all
}

// fieldValue returns a field of the email; "" when it is absent.
func fieldValue(d *model.EmailReceivedData, field string) string {
	switch field {
	case "subject":
		return d.Subject
	case "from.address":
		return d.From.Address
	case "from.name":
		return d.From.Name
	case "to.address":
		if len(d.To) > 0 {
			return d.To[0].Address
		}
	case "to.name":
		if len(d.To) > 0 {
			return d.To[0].Name
		}
	case "body.text":
		return cutBytes(d.TextBody, filterBodyLimit)
	case "body.html":
		return cutBytes(d.HTMLBody, filterBodyLimit)
	default:
		if name, ok := strings.CutPrefix(field, "header."); ok {
			return d.Headers[name]
		}
	}
	return ""
}

func (r compiledRule) match(d *model.EmailReceivedData) bool {
	v := fieldValue(d, r.field)
	switch r.operator {
	case model.OpExists:
		return v != ""
	case model.OpRegex:
		return r.re.MatchString(v)
	case model.OpDomain:
		domain := emailDomain(v)
		return domain != "" && (domain == r.value || strings.HasSuffix(domain, "."+r.value))
	}
	if !r.caseSensitive {
		v = strings.ToLower(v)
	}
	switch r.operator {
	case model.OpEquals:
		return v == r.value
	case model.OpContains:
		return strings.Contains(v, r.value)
	case model.OpStartsWith:
		return strings.HasPrefix(v, r.value)
	case model.OpEndsWith:
		return strings.HasSuffix(v, r.value)
	}
	return false
}

// emailDomain is the lowercased domain of an address, also inside a display
// form such as `"Bob" <bob@example.org>`; "" when there is none.
func emailDomain(v string) string {
	if open := strings.LastIndexByte(v, '<'); open >= 0 {
		if end := strings.IndexByte(v[open:], '>'); end > 0 {
			v = v[open+1 : open+end]
		}
	}
	at := strings.LastIndexByte(v, '@')
	if at < 0 {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(v[at+1:])), ".")
}

// cutBytes returns at most n bytes of s, cut at a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
