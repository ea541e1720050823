package tui

import (
	"time"

	"sandview/keys"
	"sandview/theme"
)

// shared is the context every pane reads: the current theme, the key map
// and the clock. The root model owns it; panes hold a pointer.
type shared struct {
	theme theme.Theme
	keys  keys.KeyMap
	edit  keys.EditKeyMap
	clock func() time.Time
	now   time.Time // refreshed by the 1 s tick
}

// styles is a shorthand for the theme's named styles.
func (s *shared) styles() *theme.Styles { return &s.theme.Styles }
