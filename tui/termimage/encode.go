package termimage

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/iterm2"
	"github.com/charmbracelet/x/ansi/kitty"
	"github.com/charmbracelet/x/ansi/sixel"
)

// Place is where a picture goes on the screen and how it is sent.
type Place struct {
	// X and Y are the top left cell, from 0; Cols and Rows the cells the
	// picture may cover (for clearing it, and iTerm2's width).
	X, Y, Cols, Rows int
	// ID names a kitty image, so it can be replaced and deleted (1 when 0).
	ID int
	// Tmux wraps the sequences in tmux's passthrough (tmux's
	// allow-passthrough must be on).
	Tmux bool
	// Here writes the picture at the cursor, without saving, moving and
	// restoring it (for printing to a terminal from the command line).
	Here bool
}

// Encode writes img with protocol p (None writes nothing) at the place:
// the cursor is saved, moved to the top left cell, the picture drawn and
// the cursor restored, so a full-screen program's idea of the cursor
// holds.
func Encode(w io.Writer, img image.Image, p Protocol, at Place) error {
	var seq bytes.Buffer
	switch p {
	case Kitty:
		if err := kittySeq(&seq, img, at); err != nil {
			return err
		}
	case ITerm2:
		if err := iterm2Seq(&seq, img, at); err != nil {
			return err
		}
	case Sixel:
		if err := sixelSeq(&seq, img, at); err != nil {
			return err
		}
	default:
		return nil
	}
	out := seq.String()
	if at.Tmux && p != Kitty { // kitty wraps each chunk itself
		out = ansi.TmuxPassthrough(out)
	}
	if !at.Here {
		out = ansi.SaveCursor + ansi.CursorPosition(at.X+1, at.Y+1) + out + ansi.RestoreCursor
	}
	if _, err := io.WriteString(w, out); err != nil {
		return fmt.Errorf("write the %s picture: %w", p, err)
	}
	return nil
}

// kittySeq is a kitty "transmit and put" of img as PNG in chunks, the
// cursor not moved, under the place's image id (replacing what it held).
func kittySeq(w io.Writer, img image.Image, at Place) error {
	o := &kitty.Options{
		Action:          kitty.TransmitAndPut,
		Transmission:    kitty.Direct,
		Format:          kitty.PNG,
		ID:              kittyID(at),
		Quiet:           2,
		Chunk:           true,
		DoNotMoveCursor: true,
	}
	if at.Tmux {
		o.ChunkFormatter = ansi.TmuxPassthrough
	}
	if _, err := io.WriteString(w, wrap(kittyDelete(kittyID(at)), at.Tmux)); err != nil {
		return fmt.Errorf("write the kitty picture: %w", err)
	}
	if err := kitty.EncodeGraphics(w, img, o); err != nil {
		return fmt.Errorf("encode the kitty picture: %w", err)
	}
	return nil
}

// iterm2Seq is an iTerm2 inline image of img as PNG, as wide as its
// pixels.
func iterm2Seq(w io.Writer, img image.Image, at Place) error {
	var pngData bytes.Buffer
	if err := png.Encode(&pngData, img); err != nil {
		return fmt.Errorf("encode the iTerm2 picture: %w", err)
	}
	f := iterm2.File{
		Inline:          true,
		Size:            int64(pngData.Len()),
		Width:           iterm2.Pixels(img.Bounds().Dx()),
		Height:          iterm2.Pixels(img.Bounds().Dy()),
		DoNotMoveCursor: true,
		Content:         []byte(base64.StdEncoding.EncodeToString(pngData.Bytes())),
	}
	_, err := io.WriteString(w, ansi.ITerm2(f))
	if err != nil {
		return fmt.Errorf("write the iTerm2 picture: %w", err)
	}
	return nil
}

// sixelSeq is a sixel image of img (up to 256 colours, by the encoder's
// median cut), its background pixels painted (P2 = 0; 1 would leave
// them transparent).
func sixelSeq(w io.Writer, img image.Image, _ Place) error {
	var data bytes.Buffer
	if err := (&sixel.Encoder{}).Encode(&data, img); err != nil {
		return fmt.Errorf("encode the sixel picture: %w", err)
	}
	if _, err := io.WriteString(w, ansi.SixelGraphics(0, 0, 0, data.Bytes())); err != nil {
		return fmt.Errorf("write the sixel picture: %w", err)
	}
	return nil
}

// Clear is the sequence that takes a picture drawn at the place off the
// screen: kitty deletes the image by its id; sixel and iTerm2 pictures
// are pixels in the cells, so spaces are written over them (xterm keeps
// a sixel's pixels through ECH), the cursor saved and restored around.
func Clear(p Protocol, at Place) string {
	switch p {
	case Kitty:
		return wrap(kittyDelete(kittyID(at)), at.Tmux)
	case Sixel, ITerm2:
		var b strings.Builder
		b.WriteString(ansi.SaveCursor)
		for r := range at.Rows {
			b.WriteString(ansi.CursorPosition(at.X+1, at.Y+r+1))
			b.WriteString(strings.Repeat(" ", at.Cols))
		}
		b.WriteString(ansi.RestoreCursor)
		return b.String()
	}
	return ""
}

// kittyDelete deletes the kitty image id and frees its data.
func kittyDelete(id int) string {
	return ansi.KittyGraphics(nil, "a=d", "d=I", "i="+strconv.Itoa(id), "q=2")
}

func kittyID(at Place) int {
	if at.ID <= 0 {
		return 1
	}
	return at.ID
}

// wrap wraps seq in tmux's passthrough when tmux is true.
func wrap(seq string, tmux bool) string {
	if tmux {
		return ansi.TmuxPassthrough(seq)
	}
	return seq
}
