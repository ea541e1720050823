package expect

import (
	"context"
	"fmt"
	"strings"

	"sandview/client/linkcheck"
	"sandview/model"
	"sandview/tui/htmlcompat"
)

// maxListed is how many offenders a Found lists before "and N more".
const maxListed = 5

// listed joins items for a Found, at most maxListed of them.
func listed(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}

func checkCompat(e model.Email, least float64) Result {
	r := Result{Name: Compat, Expected: fmt.Sprintf("HTML compatibility score at least %g%%", least)}
	if e.HTML == "" {
		r.Passed, r.Found = true, "no HTML part"
		return r
	}
	data, err := htmlcompat.Default()
	if err != nil {
		r.Found = "the compatibility data cannot be read: " + err.Error()
		return r
	}
	rep := data.Check(e.HTML)
	r.Passed = rep.Score >= least
	r.Found = fmt.Sprintf("%.0f%% of %d email clients", rep.Score, rep.Clients)
	if off := rep.Offenders(); len(off) > 0 {
		var worst []string
		for _, f := range off {
			worst = append(worst, fmt.Sprintf("%s %.0f%%", f.Title, f.Support))
		}
		r.Found += "; least supported: " + listed(worst)
	}
	return r
}

func checkSpam(e model.Email, most float64) Result {
	r := Result{Name: Spam, Expected: fmt.Sprintf("spam score at most %g", most), Found: model.SpamSummary(e.SpamAnalysis)}
	a := e.SpamAnalysis
	r.Passed = a != nil && a.Status == model.SpamAnalyzed && a.Score <= most
	return r
}

func checkLinks(ctx context.Context, e model.Email, o Options) Result {
	r := Result{Name: Links, Expected: "every link answers 2xx or 3xx"}
	c := linkcheck.New(linkcheck.Options{AllowPrivate: o.AllowPrivate, Timeout: o.LinkTimeout})
	defer c.Close()
	results := c.Check(ctx, e.Links, nil)
	var bad []string
	for _, l := range results {
		if l.Outcome == linkcheck.OK {
			continue
		}
		why := l.Outcome
		switch {
		case l.Status != 0:
			why = fmt.Sprint(l.Status)
		case l.Private:
			why = l.Error + " (allowed with --private)"
		case l.Error != "":
			why = l.Error
		}
		bad = append(bad, l.URL+": "+why)
	}
	r.Passed = len(bad) == 0
	switch {
	case len(results) == 0:
		r.Found = "no links"
	case r.Passed:
		r.Found = fmt.Sprintf("%d links answer", len(results))
	default:
		r.Found = fmt.Sprintf("%d of %d links fail: %s", len(bad), len(results), listed(bad))
	}
	return r
}

func checkHTMLSize(e model.Email) Result {
	r := Result{Name: HTMLSize, Expected: fmt.Sprintf("HTML under %d KB (Gmail clips larger)", GmailClipBytes/1024)}
	if e.HTML == "" {
		r.Passed, r.Found = true, "no HTML part"
		return r
	}
	r.Passed = len(e.HTML) < GmailClipBytes
	r.Found = fmt.Sprintf("%.1f KB", float64(len(e.HTML))/1024)
	return r
}

func checkTextPart(e model.Email) Result {
	r := Result{Name: TextPart, Expected: "a text part", Passed: strings.TrimSpace(e.Text) != ""}
	r.Found = "a text part"
	if !r.Passed {
		r.Found = "no text part (HTML only)"
	}
	return r
}

func checkListUnsubscribe(e model.Email) Result {
	v := strings.TrimSpace(e.Header("List-Unsubscribe"))
	r := Result{Name: ListUnsubscribe, Expected: "a List-Unsubscribe header", Passed: v != "", Found: "List-Unsubscribe: " + v}
	if v == "" {
		r.Found = "no List-Unsubscribe header"
	}
	return r
}

func checkDeceptive(e model.Email) Result {
	ds := linkcheck.Deceptions(e.HTML)
	r := Result{Name: DeceptiveLinks, Expected: "no link whose text names another host", Passed: len(ds) == 0, Found: "none"}
	if len(ds) > 0 {
		var ws []string
		for _, d := range ds {
			ws = append(ws, d.Warning()+": "+d.Link)
		}
		r.Found = listed(ws)
	}
	return r
}
