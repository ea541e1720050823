package store

import (
	"slices"
	"testing"
)

// TestAllocClasses: the size classes Layout goes by are the running
// allocator's.
func TestAllocClasses(t *testing.T) {
	prev := allocClasses[0] - 1
	for _, class := range allocClasses {
		for _, n := range []int{prev + 1, class} {
			if got := cap(slices.Grow([]byte(nil), n)); got != class {
				t.Errorf("an allocation of %d bytes takes %d, allocClasses says %d", n, got, class)
			}
		}
		prev = class
	}
}
