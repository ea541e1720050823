package client

import (
	"fmt"
	"regexp"
	"strings"
)

// Matcher matches a string: exactly, by substring or by regular
// expression. The zero Matcher matches everything.
type Matcher struct {
	kind  matchKind
	text  string
	regex *regexp.Regexp
}

type matchKind int

const (
	matchAny matchKind = iota
	matchExact
	matchContains
	matchRegexp
)

// Exactly matches s itself.
func Exactly(s string) Matcher { return Matcher{kind: matchExact, text: s} }

// Contains matches strings that contain s (the contract's string filter).
func Contains(s string) Matcher { return Matcher{kind: matchContains, text: s} }

// Regexp matches strings in which re finds a match; a nil re matches
// everything.
func Regexp(re *regexp.Regexp) Matcher {
	if re == nil {
		return Matcher{}
	}
	return Matcher{kind: matchRegexp, regex: re}
}

// Match reports whether s matches.
func (m Matcher) Match(s string) bool {
	switch m.kind {
	case matchExact:
		return s == m.text
	case matchContains:
		return strings.Contains(s, m.text)
	case matchRegexp:
		return m.regex.MatchString(s)
	}
	return true
}

func (m Matcher) String() string {
	switch m.kind {
	case matchExact:
		return fmt.Sprintf("exactly %q", m.text)
	case matchContains:
		return fmt.Sprintf("containing %q", m.text)
	case matchRegexp:
		return fmt.Sprintf("matching /%s/", m.regex)
	}
	return "anything"
}
