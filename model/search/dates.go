package search

import (
	"strings"
	"time"
)

// dateForms describes the values before: and after: take, for errors.
const dateForms = "a date (2026-11-01), a time (2026-11-01T15:04, 2026-11-01T15:04:05 or RFC 3339 with an offset), today, yesterday, or an age such as 30m, 2h, 7d or 2w"

// maxAgeDigits bounds an age's number, so 999999w (19,000 years) is the
// oldest and no arithmetic overflows.
const maxAgeDigits = 6

// parseDate resolves a before:/after: value to the instant it names, in
// UTC, and its canonical spelling. A date names its midnight and a time
// without an offset is read in now's location; an age (30m, 2h, 7d, 2w) is
// that long before now, days and weeks counted on the calendar; today and
// yesterday are those days' midnights.
func parseDate(v string, now time.Time) (time.Time, string, bool) {
	lower := strings.ToLower(v)
	y, m, d := now.Date()
	switch lower {
	case "today":
		return time.Date(y, m, d, 0, 0, 0, 0, now.Location()).UTC(), lower, true
	case "yesterday":
		return time.Date(y, m, d-1, 0, 0, 0, 0, now.Location()).UTC(), lower, true
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, v, now.Location()); err == nil {
			return t.UTC(), v, true
		}
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), v, true
	}
	if at, ok := parseAge(lower, now); ok {
		return at.UTC(), lower, true
	}
	return time.Time{}, "", false
}

// parseAge reads an age: digits and a unit, m(inutes), h(ours), d(ays) or
// w(eeks).
func parseAge(v string, now time.Time) (time.Time, bool) {
	if len(v) < 2 || len(v) > maxAgeDigits+1 {
		return time.Time{}, false
	}
	digits, unit := v[:len(v)-1], v[len(v)-1]
	n := 0
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return time.Time{}, false
		}
		n = 10*n + int(digits[i]-'0')
	}
	switch unit {
	case 'm':
		return now.Add(-time.Duration(n) * time.Minute), true
	case 'h':
		return now.Add(-time.Duration(n) * time.Hour), true
	case 'd':
		return now.AddDate(0, 0, -n), true
	case 'w':
		return now.AddDate(0, 0, -7*n), true
	}
	return time.Time{}, false
}
