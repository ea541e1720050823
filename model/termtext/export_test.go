package termtext

// Internals for the external tests of package termtext_test.
var (
	RemovedRune         = removedRune
	IsRegionalIndicator = isRegionalIndicator
	WidthConflicts      = widthConflicts
)

const ClusterBreak = clusterBreak
