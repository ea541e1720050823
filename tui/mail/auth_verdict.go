package mail

import (
	"charm.land/lipgloss/v2"

	"sandview/model"
	"sandview/theme"
)

// verdictStyle is the theme's colour of a verdict.
func verdictStyle(st *theme.Styles, v model.AuthVerdict) lipgloss.Style {
	return [...]lipgloss.Style{st.AuthSkipped, st.AuthSkipped, st.AuthPass, st.AuthWarn, st.AuthFail}[v]
}

// resultText is a check's result in the theme's colour, with a symbol that
// keeps its meaning without colour and, when it is not plain, what it
// means (model.ResultMeaning). No result is "not reported".
func resultText(st *theme.Styles, check, result string) string {
	if result == "" {
		return st.AuthSkipped.Render("- not reported")
	}
	meaning := model.ResultMeaning(check, result)
	if meaning != "" {
		meaning = " (" + meaning + ")"
	}
	switch model.KindOfResult(result) {
	case model.ResultKindPassed:
		return st.AuthPass.Render("✓ " + result)
	case model.ResultKindFailed:
		return st.AuthFail.Render("✗ "+result) + st.Muted.Render(meaning)
	case model.ResultKindSkipped:
		return st.AuthSkipped.Render("- " + result)
	}
	return st.AuthWarn.Render("~ "+result) + st.Muted.Render(meaning)
}
