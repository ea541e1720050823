package model

import (
	"bytes"
	"encoding/json"
)

// chaosConfigFields is ChaosConfig without its methods.
type chaosConfigFields ChaosConfig

// MarshalJSON writes the config in its stored form; an expiresAt sent as
// a literal null is echoed as null (chaos.md, section 3).
func (c ChaosConfig) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(chaosConfigFields(c))
	if err != nil || !c.ExpiresAtNull || c.ExpiresAt != nil {
		return data, err
	}
	// {"enabled":B,...}: expiresAt goes right after enabled.
	enabled := []byte(`{"enabled":false`)
	if c.Enabled {
		enabled = []byte(`{"enabled":true`)
	}
	rest := data[len(enabled):]
	out := append(append(append([]byte{}, enabled...), `,"expiresAt":null`...), rest...)
	return out, nil
}

// UnmarshalJSON reads a stored config, telling an expiresAt of null from
// none.
func (c *ChaosConfig) UnmarshalJSON(data []byte) error {
	var fields chaosConfigFields
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	v, ok := raw["expiresAt"]
	fields.ExpiresAtNull = ok && bytes.Equal(bytes.TrimSpace(v), []byte("null"))
	*c = ChaosConfig(fields)
	return nil
}
