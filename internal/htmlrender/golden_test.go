package htmlrender

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestNewsletterGoldens renders the fixture newsletter at 375 and 1024 px,
// light and dark, with a real headless Chromium and compares each with its
// golden PNG (go test ./internal/htmlrender -run Goldens -update rewrites
// them).
func TestNewsletterGoldens(t *testing.T) {
	in := newsletter(t)
	for _, width := range []int{375, 1024} {
		for _, dark := range []bool{false, true} {
			name := goldenName(width, dark)
			t.Run(name, func(t *testing.T) {
				res := render(t, shared, in, Options{Width: width, Dark: dark})
				if res.Cut != "" || res.Blocked != 0 {
					t.Errorf("cut %q, %d blocked: want the whole mail, nothing blocked", res.Cut, res.Blocked)
				}
				if res.Width != width {
					t.Errorf("width %d px, want %d", res.Width, width)
				}
				path := filepath.Join("testdata", name)
				if *update {
					if err := os.WriteFile(path, res.PNG, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) > 200<<10 {
					t.Errorf("golden %s is %d bytes: keep it under 200 KB", name, len(want))
				}
				if diff := compare(decode(t, res.PNG), decode(t, want)); diff != "" {
					t.Errorf("render differs from %s: %s", path, diff)
				}
			})
		}
	}
}

// TestGoldenComparisonFails proves the comparison catches what it is for:
// the phone layout against the desktop golden, dark against light, and the
// cid: logo missing.
func TestGoldenComparisonFails(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	in := newsletter(t)
	phone := render(t, shared, in, Options{Width: 375})
	if compare(decode(t, phone.PNG), decode(t, read(goldenName(1024, false)))) == "" {
		t.Error("the 375 px render matches the 1024 px golden")
	}
	if compare(decode(t, read(goldenName(375, true))), decode(t, read(goldenName(375, false)))) == "" {
		t.Error("the dark golden matches the light one")
	}
	noLogo := in
	noLogo.Inline = nil
	broken := render(t, shared, noLogo, Options{Width: 375})
	if compare(decode(t, broken.PNG), decode(t, read(goldenName(375, false)))) == "" {
		t.Error("the render without its cid: logo matches the golden")
	}
	// The logo's yellow is in the golden and not without the cid: part.
	if n := countColor(decode(t, phone.PNG), 255, 200, 0); n < 40*40/2 {
		t.Errorf("%d yellow pixels: the cid: logo is not drawn", n)
	}
	if n := countColor(decode(t, broken.PNG), 255, 200, 0); n != 0 {
		t.Errorf("%d yellow pixels without the cid: part", n)
	}
}

func goldenName(width int, dark bool) string {
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	return fmt.Sprintf("newsletter-%d-%s.png", width, scheme)
}
