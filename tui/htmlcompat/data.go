package htmlcompat

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// caniemailJSON is caniemail's data (npm package caniemail, MIT, see
// data/LICENSE), refreshed by scripts/update-caniemail.sh.
//
//go:embed data/caniemail.json
var caniemailJSON []byte

//go:embed data/VERSION
var caniemailVersion string

// Support is how a client supports a feature in its latest test.
type Support byte

// The levels of support caniemail records.
const (
	Unknown     Support = 'u'
	Supported   Support = 'y'
	Partial     Support = 'a'
	Unsupported Support = 'n'
)

// Client is one email client on one platform, as caniemail names them.
type Client struct {
	Family   string `json:"family"`
	Platform string `json:"platform"`
}

func (c Client) String() string { return c.Family + " " + c.Platform }

// feature is one caniemail entry: the support of each client in its
// latest tested version.
type feature struct {
	Slug, Title, URL, Category string
	support                    map[Client]Support
}

// Data is caniemail's data set, parsed.
type Data struct {
	Version, Updated string
	features         map[string]*feature
	clients          []Client // every client × platform of the data set
}

// Default is the embedded data set, parsed once.
var Default = sync.OnceValues(func() (*Data, error) { return Parse(caniemailJSON, strings.TrimSpace(caniemailVersion)) })

// Parse reads caniemail.json. For each client and platform the support
// is that of the last version listed (caniemail lists them oldest first).
func Parse(raw []byte, version string) (*Data, error) {
	var doc struct {
		Updated   string `json:"last_update_date"`
		Nicenames struct {
			Family   map[string]string `json:"family"`
			Platform map[string]string `json:"platform"`
		} `json:"nicenames"`
		Data []struct {
			Slug     string                                `json:"slug"`
			Title    string                                `json:"title"`
			URL      string                                `json:"url"`
			Category string                                `json:"category"`
			Stats    map[string]map[string]json.RawMessage `json:"stats"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("caniemail data: %w", err)
	}
	nice := func(names map[string]string, key string) string {
		if n, ok := names[key]; ok {
			return n
		}
		return key
	}
	d := &Data{Version: version, Updated: doc.Updated, features: make(map[string]*feature, len(doc.Data))}
	seen := map[Client]bool{}
	for _, f := range doc.Data {
		ft := &feature{Slug: f.Slug, Title: f.Title, URL: f.URL, Category: f.Category, support: map[Client]Support{}}
		for fam, platforms := range f.Stats {
			for plat, versions := range platforms {
				s, err := latest(versions)
				if err != nil {
					return nil, fmt.Errorf("caniemail data: %s %s %s: %w", f.Slug, fam, plat, err)
				}
				c := Client{Family: nice(doc.Nicenames.Family, fam), Platform: nice(doc.Nicenames.Platform, plat)}
				ft.support[c] = s
				if !seen[c] {
					seen[c] = true
					d.clients = append(d.clients, c)
				}
			}
		}
		d.features[f.Slug] = ft
	}
	sort.Slice(d.clients, func(i, j int) bool { return d.clients[i].String() < d.clients[j].String() })
	return d, nil
}

// latest is the support recorded for the last version of an object
// {"version": "y #1", ...}; keys are kept in order only by the decoder.
func latest(versions json.RawMessage) (Support, error) {
	dec := json.NewDecoder(bytes.NewReader(versions))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return Unknown, fmt.Errorf("versions are not an object")
	}
	last := ""
	for dec.More() {
		if _, err := dec.Token(); err != nil { // the version
			return Unknown, err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return Unknown, err
		}
		last = v
	}
	last = strings.TrimSpace(last)
	if last == "" {
		return Unknown, nil
	}
	switch s := Support(last[0]); s {
	case Supported, Partial, Unsupported:
		return s, nil
	}
	return Unknown, nil
}

// Clients is every client × platform the data set has tested.
func (d *Data) Clients() []Client { return append([]Client(nil), d.clients...) }

// Has reports whether the data set knows a feature slug.
func (d *Data) Has(slug string) bool { return d.features[slug] != nil }
