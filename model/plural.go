package model

import "strconv"

// Plural is "1 email", "3 emails": n and the word in the form it takes.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
