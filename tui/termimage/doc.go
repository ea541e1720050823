// Package termimage draws pictures in a terminal with its graphics
// protocol: kitty graphics, iTerm2 inline images or sixel (the encoders
// of github.com/charmbracelet/x/ansi), fitted to a rectangle of cells,
// wrapped for tmux's passthrough when needed, and cleared again. It also
// chooses the protocol from what the terminal answers to the kitty
// graphics query and to DA1, and from the terminal's name.
package termimage
