// Command gennfpm writes the nfpm configuration of sandview's .deb and .rpm
// from .goreleaser.yaml's nfpms entry, so the packages are described once:
// `make dist` gives that entry to goreleaser, CI (`make ci-package`) gives
// this command's output to nfpm alone, without goreleaser's slow first build.
//
//	go run ./internal/gennfpm -version V -arch amd64 -binary PATH [-config .goreleaser.yaml] > nfpm.yaml
//
// goreleaser adds the binary itself (bindir) and fills in the version and
// architecture; this command does the same from its flags. The entry is read
// strictly: a field this command does not translate, a goreleaser template
// ({{ }}) or an nfpm environment reference ($) is an error, never dropped.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// conventionalName is the only file name template translated: nfpm's own
// name for a package written into a directory.
const conventionalName = "{{ .ConventionalFileName }}"

// goreleaserNfpm is the part of a goreleaser nfpms entry sandview uses.
type goreleaserNfpm struct {
	// goreleaser's own: which entry, which packages and their names.
	ID               string   `yaml:"id"`
	Formats          []string `yaml:"formats"`
	FileNameTemplate string   `yaml:"file_name_template"`

	PackageName string    `yaml:"package_name"`
	Vendor      string    `yaml:"vendor"`
	Maintainer  string    `yaml:"maintainer"`
	Description string    `yaml:"description"`
	License     string    `yaml:"license"`
	Section     string    `yaml:"section"`
	Bindir      string    `yaml:"bindir"`
	Contents    []content `yaml:"contents"`
	Scripts     scripts   `yaml:"scripts"`
}

// content is one file of a package, the same in goreleaser and nfpm.
type content struct {
	Src      string    `yaml:"src,omitempty"`
	Dst      string    `yaml:"dst"`
	Type     string    `yaml:"type,omitempty"`
	Packager string    `yaml:"packager,omitempty"`
	FileInfo *fileInfo `yaml:"file_info,omitempty"`
}

type fileInfo struct {
	Owner string   `yaml:"owner,omitempty"`
	Group string   `yaml:"group,omitempty"`
	Mode  fileMode `yaml:"mode,omitempty"`
}

// fileMode is written in octal (0750), as a person writes it.
type fileMode uint32

func (m fileMode) MarshalYAML() (any, error) {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "0" + strconv.FormatUint(uint64(m), 8)}, nil
}

type scripts struct {
	PreInstall  string `yaml:"preinstall,omitempty"`
	PostInstall string `yaml:"postinstall,omitempty"`
	PreRemove   string `yaml:"preremove,omitempty"`
	PostRemove  string `yaml:"postremove,omitempty"`
}

// nfpmConfig is what nfpm pkg --config reads.
type nfpmConfig struct {
	Name        string    `yaml:"name"`
	Arch        string    `yaml:"arch"`
	Platform    string    `yaml:"platform"`
	Version     string    `yaml:"version"`
	Section     string    `yaml:"section,omitempty"`
	Maintainer  string    `yaml:"maintainer,omitempty"`
	Description string    `yaml:"description,omitempty"`
	Vendor      string    `yaml:"vendor,omitempty"`
	License     string    `yaml:"license,omitempty"`
	Contents    []content `yaml:"contents"`
	Scripts     scripts   `yaml:"scripts"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gennfpm:", err)
		os.Exit(2)
	}
}

func run(args []string, out io.Writer) error {
	flags := flag.NewFlagSet("gennfpm", flag.ContinueOnError)
	config := flags.String("config", ".goreleaser.yaml", "goreleaser's configuration")
	version := flags.String("version", "", "the packages' version (as goreleaser's snapshot: 1.2.3-dev+abc1234)")
	arch := flags.String("arch", "", "GOARCH of the binary")
	binary := flags.String("binary", "", "the linux binary to package")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *version == "" || *arch == "" || *binary == "" || flags.NArg() != 0 {
		return errors.New("usage: gennfpm -version V -arch GOARCH -binary PATH [-config .goreleaser.yaml]")
	}
	data, err := os.ReadFile(*config)
	if err != nil {
		return fmt.Errorf("reading goreleaser's configuration: %w", err)
	}
	entry, err := parseNfpm(data)
	if err != nil {
		return fmt.Errorf("%s: %w", *config, err)
	}
	text, err := translate(entry, *version, *arch, *binary)
	if err != nil {
		return fmt.Errorf("%s: %w", *config, err)
	}
	_, err = out.Write(text)
	return err
}

// parseNfpm reads the one nfpms entry of a goreleaser configuration,
// refusing any field goreleaserNfpm does not know.
func parseNfpm(data []byte) (goreleaserNfpm, error) {
	var top struct {
		Nfpms []yaml.Node `yaml:"nfpms"`
	}
	if err := yaml.Unmarshal(data, &top); err != nil {
		return goreleaserNfpm{}, fmt.Errorf("parsing: %w", err)
	}
	if len(top.Nfpms) != 1 {
		return goreleaserNfpm{}, fmt.Errorf("want one nfpms entry, found %d", len(top.Nfpms))
	}
	raw, err := yaml.Marshal(&top.Nfpms[0])
	if err != nil {
		return goreleaserNfpm{}, fmt.Errorf("nfpms: %w", err)
	}
	var entry goreleaserNfpm
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&entry); err != nil {
		return goreleaserNfpm{}, fmt.Errorf("nfpms (a field gennfpm does not translate to nfpm?): %w", err)
	}
	return entry, nil
}

// translate gives nfpm the entry's package, with the binary goreleaser
// would add in bindir.
func translate(e goreleaserNfpm, version, arch, binary string) ([]byte, error) {
	if e.FileNameTemplate != "" && e.FileNameTemplate != conventionalName {
		return nil, fmt.Errorf("nfpms file_name_template %q: only %q is translated to nfpm", e.FileNameTemplate, conventionalName)
	}
	if e.PackageName == "" || e.Bindir == "" {
		return nil, errors.New("nfpms needs package_name and bindir")
	}
	bin := content{Src: binary, Dst: path.Join(e.Bindir, path.Base(binary)), FileInfo: &fileInfo{Mode: 0o755}}
	c := nfpmConfig{
		Name: e.PackageName, Arch: arch, Platform: "linux", Version: version,
		Section: e.Section, Maintainer: e.Maintainer, Description: e.Description,
		Vendor: e.Vendor, License: e.License,
		Contents: append([]content{bin}, e.Contents...),
		Scripts:  e.Scripts,
	}
	var buf bytes.Buffer
	buf.WriteString("# Generated by internal/gennfpm from .goreleaser.yaml's nfpms: edit that.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("writing nfpm's configuration: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("writing nfpm's configuration: %w", err)
	}
	text := buf.Bytes()
	for _, s := range []string{"{{", "$"} {
		if bytes.Contains(text, []byte(s)) {
			return nil, fmt.Errorf("nfpms holds %q, which goreleaser and nfpm expand differently: not translated", s)
		}
	}
	return text, nil
}
