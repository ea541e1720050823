package ui

import (
	"fmt"
	"time"
)

// RelativeTime is a short age such as "now", "5m", "3h", "2d" or a date.
func RelativeTime(t, now time.Time) string {
	if t.IsZero() {
		return "?"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	case t.Year() == now.Year():
		return t.Format("Jan 2")
	}
	return t.Format("2006-01")
}

// Countdown is the time left until expiry: "59m12s", "5h03m", "2d04h".
func Countdown(left time.Duration) string {
	left = left.Truncate(time.Second)
	switch {
	case left <= 0:
		return "expired"
	case left < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(left/time.Minute), int(left%time.Minute/time.Second))
	case left < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(left/time.Hour), int(left%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd%02dh", int(left/(24*time.Hour)), int(left%(24*time.Hour)/time.Hour))
}
