// Package theme owns every colour and style of sandview's terminal UI: a dark
// and a light palette picked from the terminal background, and a colourless
// variant for NO_COLOR that stays readable with bold, underline and reverse.
// Other packages use the named styles and never build their own.
package theme
