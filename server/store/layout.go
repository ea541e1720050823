package store

import "slices"

// Layout is how the memory store lays out an email's payloads (sizes:
// metadata, parsed, raw) in allocations: in one, or in two when those
// round up to less (an encrypted mail of 15.3 KB takes 16 KB in one, 15.6
// KB in two). Payload i goes in allocation groups[i], of totals[groups[i]]
// bytes, after the payloads before it in the same one.
func Layout(sizes [3]int) (groups [3]int, totals [2]int) {
	all := sizes[0] + sizes[1] + sizes[2]
	best := Allocated(all)
	for alone := range sizes { // one payload in an allocation of its own
		if sizes[alone] == 0 || sizes[alone] == all {
			continue
		}
		if cost := Allocated(all-sizes[alone]) + Allocated(sizes[alone]); cost < best {
			best = cost
			groups = [3]int{}
			groups[alone] = 1
		}
	}
	for i, n := range sizes {
		totals[groups[i]] += n
	}
	return groups, totals
}

// allocClasses are the sizes the Go allocator rounds an allocation of 1 KB
// to 32 KB up to (runtime's size classes; larger ones take whole 8 KB
// pages). TestAllocClasses checks them against the running allocator.
var allocClasses = [...]int{1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456,
	4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336,
	16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// Allocated is about what an allocation of n bytes takes (below 1 KB, n).
func Allocated(n int) int {
	const page = 8 << 10
	switch i, _ := slices.BinarySearch(allocClasses[:], n); {
	case n < allocClasses[0]:
		return n
	case i < len(allocClasses):
		return allocClasses[i]
	default:
		return (n + page - 1) / page * page
	}
}
