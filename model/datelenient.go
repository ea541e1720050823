package model

import (
	"strconv"
	"strings"
	"time"
)

// monthNames and weekdayNames are the names parseLenientDate knows, as
// Python's email.utils does (full month names too).
var (
	monthNames = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
		"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
	weekdayNames = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}
)

// zoneOffsets are the zone names RFC 822 allows, in seconds east of UTC.
var zoneOffsets = map[string]int{
	"UT": 0, "UTC": 0, "GMT": 0, "Z": 0,
	"AST": -4 * 3600, "ADT": -3 * 3600,
	"EST": -5 * 3600, "EDT": -4 * 3600,
	"CST": -6 * 3600, "CDT": -5 * 3600,
	"MST": -7 * 3600, "MDT": -6 * 3600,
	"PST": -8 * 3600, "PDT": -7 * 3600,
}

// parseLenientDate reads the Date forms net/mail refuses and Python's
// email.utils.parsedate_tz accepts: no weekday, no seconds, a zone glued to
// the time ("00:01+0000"), day and month swapped, a two-digit year, "." in
// the time, a missing or unknown zone (read as UTC). It follows
// parsedate_tz's steps.
func parseLenientDate(value string) (time.Time, bool) {
	data := strings.Fields(value)
	if len(data) == 0 {
		return time.Time{}, false
	}
	if first := strings.ToLower(data[0]); strings.HasSuffix(first, ",") || isName(weekdayNames, first) {
		data = data[1:]
	} else if i := strings.LastIndexByte(data[0], ','); i >= 0 {
		data[0] = data[0][i+1:]
	}
	if len(data) == 3 { // RFC 850: 01-Jan-01
		if stuff := strings.Split(data[0], "-"); len(stuff) == 3 {
			data = append(stuff, data[1:]...)
		}
	}
	if len(data) == 4 {
		s := data[3]
		i := strings.IndexByte(s, '+')
		if i < 0 {
			i = strings.IndexByte(s, '-')
		}
		if i > 0 {
			data = append(data[:3], s[:i], s[i:])
		} else {
			data = append(data, "") // no zone
		}
	}
	if len(data) < 5 {
		return time.Time{}, false
	}
	dd, mm, yy, tm, tz := data[0], strings.ToLower(data[1]), data[2], data[3], data[4]
	if dd == "" || mm == "" || yy == "" {
		return time.Time{}, false
	}
	if !isName(monthNames, mm) {
		dd, mm = mm, strings.ToLower(dd)
		if !isName(monthNames, mm) {
			return time.Time{}, false
		}
	}
	month := 0
	for i, name := range monthNames {
		if name == mm {
			month = i%12 + 1
			break
		}
	}
	dd = strings.TrimSuffix(dd, ",")
	if strings.IndexByte(yy, ':') > 0 {
		yy, tm = tm, yy
	}
	yy = strings.TrimSuffix(yy, ",")
	if yy == "" {
		return time.Time{}, false
	}
	if yy[0] < '0' || yy[0] > '9' {
		yy, tz = tz, yy
	}
	tm = strings.TrimSuffix(tm, ",")
	clock := strings.Split(tm, ":")
	if len(clock) == 1 {
		clock = strings.Split(tm, ".")
	}
	if len(clock) == 2 {
		clock = append(clock, "0")
	}
	if len(clock) != 3 {
		return time.Time{}, false
	}
	nums := make([]int, 0, 5)
	for _, s := range append([]string{yy, dd}, clock...) {
		n, err := strconv.Atoi(s)
		if err != nil {
			return time.Time{}, false
		}
		nums = append(nums, n)
	}
	year, day, hour, minute, second := nums[0], nums[1], nums[2], nums[3], nums[4]
	if year < 100 {
		if year > 68 {
			year += 1900
		} else {
			year += 2000
		}
	}
	if day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60 || hour < 0 || minute < 0 || second < 0 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, second, 0, zoneOf(tz))
	if t.Day() != day {
		return time.Time{}, false // 31 Feb
	}
	return t, true
}

// withNamedZone gives t the offset of its zone name when it is one RFC 822
// allows: time.Parse reads "EST" as +0000 unless the machine's own zone
// knows it.
func withNamedZone(t time.Time) time.Time {
	name, _ := t.Zone()
	if off, ok := zoneOffsets[name]; ok {
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.FixedZone(name, off))
	}
	return t
}

// zoneOf is a Date header's zone: a name RFC 822 allows or +hhmm/-hhmm;
// anything else is UTC.
func zoneOf(tz string) *time.Location {
	tz = strings.ToUpper(tz)
	if off, ok := zoneOffsets[tz]; ok {
		return time.FixedZone(tz, off)
	}
	n, err := strconv.Atoi(tz)
	if err != nil || len(strings.TrimLeft(tz, "+-")) != 4 {
		return time.UTC
	}
	sign := 1
	if n < 0 {
		sign, n = -1, -n
	}
	if n%100 > 59 || n/100 > 23 {
		return time.UTC
	}
	return time.FixedZone("", sign*(n/100*3600+n%100*60))
}

func isName(names []string, s string) bool {
	for _, n := range names {
		if n == s {
			return true
		}
	}
	return false
}
