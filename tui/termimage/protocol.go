package termimage

import (
	"fmt"
	"strings"
)

// Protocol is a terminal graphics protocol.
type Protocol int

// The protocols, None for a terminal without graphics.
const (
	None Protocol = iota
	Kitty
	ITerm2
	Sixel
)

// String is the protocol's name as --format takes it.
func (p Protocol) String() string {
	switch p {
	case Kitty:
		return "kitty"
	case ITerm2:
		return "iterm2"
	case Sixel:
		return "sixel"
	}
	return "none"
}

// ParseProtocol reads a protocol name (kitty, iterm2, sixel).
func ParseProtocol(s string) (Protocol, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "kitty":
		return Kitty, nil
	case "iterm2", "iterm":
		return ITerm2, nil
	case "sixel":
		return Sixel, nil
	}
	return None, fmt.Errorf("unknown image format %q: use kitty, iterm2 or sixel", s)
}
