package tui

import "testing"

// TestRemoteSizeClamped: a remote terminal's claimed size is drawn at most
// MaxRemoteWidth x MaxRemoteHeight (a client may claim 65535x65535), and
// a nonsense size at 1x1.
func TestRemoteSizeClamped(t *testing.T) {
	for _, tt := range []struct{ w, h, wantW, wantH int }{
		{65535, 65535, MaxRemoteWidth, MaxRemoteHeight},
		{5000, 2000, MaxRemoteWidth, MaxRemoteHeight},
		{80, 24, 80, 24},
		{0, -3, 1, 1},
	} {
		if w, h := clamp(tt.w, tt.h); w != tt.wantW || h != tt.wantH {
			t.Errorf("clamp(%d, %d) = %dx%d, want %dx%d", tt.w, tt.h, w, h, tt.wantW, tt.wantH)
		}
	}
}
