package model

// Internals for the external tests of package model_test.
var (
	RemovedRune         = removedRune
	IsRegionalIndicator = isRegionalIndicator
	WidthConflicts      = widthConflicts
)

const ClusterBreak = clusterBreak
