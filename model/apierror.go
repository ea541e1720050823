package model

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ErrorBody is the service's error response: {statusCode, message, error}.
// Message may be a string or an array of strings on the wire.
type ErrorBody struct {
	StatusCode int      `json:"statusCode"`
	Message    Messages `json:"message"`
	Error      string   `json:"error,omitempty"`
}

// Messages decodes an error message given as a string or an array of strings.
type Messages []string

// UnmarshalJSON accepts "text", ["a","b"] and null.
func (m *Messages) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*m = Messages{s}
		return nil
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	*m = list
	return nil
}

// MarshalJSON writes a single message as a string, several as an array.
func (m Messages) MarshalJSON() ([]byte, error) {
	if len(m) == 1 {
		return json.Marshal(m[0])
	}
	return json.Marshal([]string(m))
}

// String joins the messages with "; ".
func (m Messages) String() string { return strings.Join(m, "; ") }
