package server

import (
	"bytes"
	"fmt"
	"strconv"
)

// fixReply corrects two of go-smtp's plaintext reply lines, or returns nil:
//   - EHLO's SIZE line carries the size limit, and when it is the last
//     line, a LIMITS RCPTMAX line (RFC 9422) follows it (go-smtp is given
//     neither limit, see newSMTPServer);
//   - a malformed base64 AUTH response is answered 501, as RFC 4954 asks,
//     not 454 (the session goes on either way).
//
// After STARTTLS the lines are TLS records and pass unchanged: EHLO then
// offers SIZE without a number and no LIMITS.
func fixReply(line []byte, maxMessageBytes int64) []byte {
	switch {
	case len(line) == len("250-SIZE\r\n") && bytes.HasSuffix(line, []byte("SIZE\r\n")) && bytes.HasPrefix(line, []byte("250")):
		size := "SIZE " + strconv.FormatInt(maxMessageBytes, 10) + "\r\n"
		if line[3] == ' ' {
			return fmt.Appendf(nil, "250-%s250 LIMITS RCPTMAX=%d\r\n", size, smtpMaxRecipients)
		}
		return []byte("250-" + size)
	case bytes.Equal(line, []byte("454 4.7.0 Invalid base64 data\r\n")):
		return []byte("501 5.5.2 Invalid base64 data\r\n")
	}
	return nil
}
