package ui

// AssertWrapKeepsText is assertWrapKeepsText for the external tests.
var AssertWrapKeepsText = assertWrapKeepsText
