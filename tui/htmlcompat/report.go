package htmlcompat

import (
	"fmt"
	"sort"
	"strings"
)

// Report is the compatibility of one HTML document.
type Report struct {
	// Score is the share, in percent, of the email clients (each client on
	// each platform caniemail tested, e.g. "Gmail Android") that render
	// every feature the document uses: a client that supports them all
	// counts 1, one whose worst support is partial counts ½, one that
	// lacks any counts 0. Features a client was not tested for (unknown)
	// do not count against it. Like Mailpit's score, it says what share of
	// readers see the layout as designed.
	Score float64 `json:"score"`
	// Clients is how many client × platform pairs the score is over.
	Clients int `json:"clients"`
	// Features are the features used, the worst supported first.
	Features []FeatureResult `json:"features"`
	// Data names the caniemail data set the report comes from.
	Data string `json:"data"`
}

// FeatureResult is one feature the document uses and who lacks it.
type FeatureResult struct {
	Slug        string   `json:"slug"`
	Title       string   `json:"title"`
	Category    string   `json:"category"`
	URL         string   `json:"url"`
	Uses        int      `json:"uses"`
	Unsupported []Client `json:"unsupported"`
	Partial     []Client `json:"partial"`
	// Support is the share, in percent, of clients that support it
	// (partial counting half), over the clients tested for it.
	Support float64 `json:"support"`
}

// Offenders are the features some client does not fully support.
func (r Report) Offenders() []FeatureResult {
	var out []FeatureResult
	for _, f := range r.Features {
		if len(f.Unsupported)+len(f.Partial) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// Check reports the features of an HTML document that email clients do
// not support. Any input is read: broken markup is read as far as it
// goes, at any depth.
func (d *Data) Check(doc string) Report {
	used := detect(doc)
	r := Report{Clients: len(d.clients), Data: fmt.Sprintf("caniemail %s (%s)", d.Version, d.Updated), Features: []FeatureResult{}}
	worst := make(map[Client]float64, len(d.clients))
	for _, c := range d.clients {
		worst[c] = 1
	}
	for slug, n := range used {
		f := d.features[slug]
		if f == nil {
			continue
		}
		fr := FeatureResult{Slug: slug, Title: f.Title, Category: f.Category, URL: f.URL, Uses: n,
			Unsupported: []Client{}, Partial: []Client{}}
		tested, sum := 0, 0.0
		for _, c := range d.clients {
			var v float64
			switch f.support[c] {
			case Supported:
				v = 1
			case Partial:
				v = 0.5
				fr.Partial = append(fr.Partial, c)
			case Unsupported:
				fr.Unsupported = append(fr.Unsupported, c)
			default:
				continue
			}
			tested++
			sum += v
			worst[c] = min(worst[c], v)
		}
		if tested > 0 {
			fr.Support = 100 * sum / float64(tested)
		} else {
			fr.Support = 100
		}
		r.Features = append(r.Features, fr)
	}
	total := 0.0
	for _, v := range worst {
		total += v
	}
	if len(worst) > 0 {
		r.Score = 100 * total / float64(len(worst))
	}
	sort.Slice(r.Features, func(i, j int) bool {
		a, b := r.Features[i], r.Features[j]
		if a.Support != b.Support {
			return a.Support < b.Support
		}
		return a.Slug < b.Slug
	})
	return r
}

// Clients names clients grouped by family, in order:
// "Outlook (Windows, Windows Mail), Yahoo! Mail (iOS)".
func Clients(cs []Client) string {
	var b strings.Builder
	for i := 0; i < len(cs); {
		j := i
		var platforms []string
		for ; j < len(cs) && cs[j].Family == cs[i].Family; j++ {
			platforms = append(platforms, cs[j].Platform)
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", cs[i].Family, strings.Join(platforms, ", "))
		i = j
	}
	return b.String()
}
