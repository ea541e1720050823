package cmdutil

// The unexported functions output_test.go checks.
var (
	EncodeJSON        = encodeJSON
	EscapeUnsafeRunes = escapeUnsafeRunes
)
