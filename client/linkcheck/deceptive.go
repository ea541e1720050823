package linkcheck

import (
	"net/url"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/publicsuffix"

	"sandview/client/netguard"
)

// Deception is a link whose visible text names another site than the one
// it leads to, as phishing mail writes "https://paypal.com/login" over a
// link to another host.
type Deception struct {
	// Link is the link's target as the href gives it (spaces trimmed).
	Link string `json:"link"`
	// Shown is the host its text names, invisible characters removed.
	Shown string `json:"shown"`
	// Real is the host the link leads to.
	Real string `json:"real"`
}

// Warning is the one sentence every surface shows next to such a link.
func (d Deception) Warning() string {
	return "⚠ link goes to " + d.Real + ", not " + d.Shown
}

// Deceptive reports whether a link's visible text names another host than
// its target href. The text counts only when it is a URL or a host name
// (with an optional path) once invisible characters (zero-width spaces
// and joiners, soft hyphens, bidi controls, other format characters) are
// removed; the hosts are compared by their registrable domain (the public
// suffix and one label more: www.paypal.com and paypal.com match), after
// IDNA mapping, so a look-alike written in another script differs. Text
// that names no host, such as "Log in", never deceives.
func Deceptive(text, href string) (Deception, bool) {
	href = strings.TrimSpace(href)
	real, ok := linkHost(href)
	if !ok {
		return Deception{}, false
	}
	shown, ok := textHost(text)
	if !ok || registrable(shown) == registrable(real) {
		return Deception{}, false
	}
	return Deception{Link: href, Shown: shown, Real: real}, true
}

// Deceptions are the deceptive links (Deceptive) of an HTML document, in
// document order, one per link target.
func Deceptions(doc string) []Deception {
	if doc == "" {
		return nil
	}
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return nil
	}
	var out []Deception
	seen := map[string]bool{}
	for n := range root.Descendants() {
		if n.Type != html.ElementNode || n.DataAtom != atom.A {
			continue
		}
		for _, a := range n.Attr {
			if a.Namespace != "" || a.Key != "href" {
				continue
			}
			if d, ok := Deceptive(anchorText(n), a.Val); ok && !seen[d.Link] {
				seen[d.Link] = true
				out = append(out, d)
			}
			break
		}
	}
	return out
}

// anchorText is the text under n.
func anchorText(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// linkHost is the host an http, https or ftp link leads to.
func linkHost(href string) (string, bool) {
	u, err := url.Parse(href)
	if err != nil {
		return "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ftp":
	default:
		return "", false
	}
	return normalHost(u.Hostname())
}

// textHost is the host a link's visible text names: the host of a URL
// ("https://paypal.com/login"), or a host name standing alone with an
// optional path ("www.paypal.com/login") whose public suffix is a known
// one (so that "report.pdf" or "v2.0" name no host).
func textHost(text string) (string, bool) {
	text = strings.TrimFunc(removeInvisible(text), func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("<>()[]\"'«»“”‘’.,;:!?", r)
	})
	if text == "" || strings.ContainsFunc(text, unicode.IsSpace) {
		return "", false
	}
	if i := strings.Index(text, "://"); i > 0 {
		u, err := url.Parse(text)
		if err != nil {
			return "", false
		}
		return normalHost(u.Hostname())
	}
	host := text
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if strings.Contains(host, "@") || !strings.Contains(host, ".") {
		return "", false // an address, or a word
	}
	h, ok := normalHost(trimPort(host))
	if !ok {
		return "", false
	}
	if ip, err := netguard.ParseHost(h); err == nil && ip.IsAddr() {
		return h, true
	}
	suffix, icann := publicsuffix.PublicSuffix(h)
	if !icann && !strings.Contains(suffix, ".") {
		return "", false // not a known top-level domain
	}
	return h, true
}

// trimPort cuts ":port" off host when it ends so.
func trimPort(host string) string {
	i := strings.LastIndexByte(host, ':')
	if i < 0 || strings.ContainsFunc(host[i+1:], func(r rune) bool { return r < '0' || r > '9' }) {
		return host
	}
	return host[:i]
}

// normalHost is host as a connection reads it (netguard.ParseHost: IDNA,
// lower case, an address in its usual form).
func normalHost(host string) (string, bool) {
	if host == "" {
		return "", false
	}
	h, err := netguard.ParseHost(host)
	if err != nil || h.Name == "" {
		return "", false
	}
	if !h.IsAddr() && strings.ContainsFunc(h.Name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_')
	}) {
		return "", false // not a host name: shown as it is, it could carry controls
	}
	return h.Name, true
}

// registrable is host's registrable domain (eTLD+1), or host itself when it has
// none (an address, a public suffix, a single label).
func registrable(host string) string {
	if h, err := netguard.ParseHost(host); err == nil && h.IsAddr() {
		return h.Name
	}
	if s, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return s
	}
	return host
}

// removeInvisible drops the characters a reader does not see: format
// characters (zero-width space, non-joiner and joiner, word joiner, soft
// hyphen, left-to-right and right-to-left marks, bidi embeddings,
// overrides and isolates, byte order mark), the combining grapheme joiner
// and the Hangul fillers.
func removeInvisible(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Cf, r), r == '\u034f', r == '\u115f', r == '\u1160', r == '\u3164', r == '\uffa0':
			return -1
		}
		return r
	}, s)
}
