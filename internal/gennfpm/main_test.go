package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestGennfpmRelease: from sandview's own .goreleaser.yaml, nfpm is given
// the binary goreleaser adds (bindir, 0755) and then every other file,
// script and field of the nfpms entry unchanged; read back with the
// generic YAML types (not this command's structs), so a field the structs
// lost would show.
func TestGennfpmRelease(t *testing.T) {
	var out bytes.Buffer
	err := run([]string{"-config", "../../.goreleaser.yaml", "-version", "1.2.3-ci+abc1234", "-arch", "amd64", "-binary", "build/x/sandview"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := yaml.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not YAML: %v\n%s", err, out.String())
	}
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var release struct {
		Nfpms []map[string]any `yaml:"nfpms"`
	}
	if err := yaml.Unmarshal(data, &release); err != nil || len(release.Nfpms) != 1 {
		t.Fatalf("reading .goreleaser.yaml's nfpms: %v (%d entries)", err, len(release.Nfpms))
	}
	entry := release.Nfpms[0]
	want := map[string]any{
		"name": entry["package_name"], "arch": "amd64", "platform": "linux", "version": "1.2.3-ci+abc1234",
		"section": entry["section"], "maintainer": entry["maintainer"], "description": entry["description"],
		"vendor": entry["vendor"], "license": entry["license"], "scripts": entry["scripts"],
		"contents": append([]any{map[string]any{
			"src": "build/x/sandview", "dst": "/usr/bin/sandview", "file_info": map[string]any{"mode": 0o755},
		}}, entry["contents"].([]any)...),
	}
	for key, value := range want {
		if !reflect.DeepEqual(got[key], value) {
			t.Errorf("%s: got %#v, want %#v", key, got[key], value)
		}
	}
	for key := range got {
		if _, ok := want[key]; !ok {
			t.Errorf("unexpected field %s", key)
		}
	}
	if !strings.Contains(out.String(), "mode: 0640") {
		t.Errorf("modes are not written in octal:\n%s", out.String())
	}
}

// TestGennfpmRefuses: what would not mean the same to nfpm as to
// goreleaser is an error naming it, never left out.
func TestGennfpmRefuses(t *testing.T) {
	const entry = "nfpms:\n  - package_name: sandview\n    bindir: /usr/bin\n    contents:\n      - src: a\n        dst: /a\n"
	cases := map[string]struct{ config, want string }{
		"an untranslated field":    {entry + "    dependencies: [libc6]\n", "dependencies"},
		"an untranslated content":  {entry + "        expand: true\n", "expand"},
		"a template":               {entry + "      - src: '{{ .Env.X }}'\n        dst: /b\n", "{{"},
		"an environment reference": {entry + "    description: costs $5\n", "$"},
		"another file name":        {entry + "    file_name_template: '{{ .ProjectName }}.deb'\n", "file_name_template"},
		"two entries":              {entry + "  - package_name: other\n", "found 2"},
		"no entry":                 {"project_name: sandview\n", "found 0"},
		"no bindir":                {"nfpms:\n  - package_name: sandview\n", "bindir"},
		"not YAML":                 {"nfpms: [\n", "parsing"},
		"a missing configuration":  {"", "reading"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			config := filepath.Join(t.TempDir(), "goreleaser.yaml")
			if c.config != "" {
				if err := os.WriteFile(config, []byte(c.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			err := run([]string{"-config", config, "-version", "1", "-arch", "amd64", "-binary", "sandview"}, &out)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error naming %q", err, c.want)
			}
			if out.Len() != 0 {
				t.Errorf("wrote output despite the error:\n%s", out.String())
			}
		})
	}
	var out bytes.Buffer
	if err := run([]string{"-version", "1"}, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("missing flags: got %v, want the usage", err)
	}
}
