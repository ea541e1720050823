package expect

import (
	"encoding/xml"
	"fmt"
	"io"

	"sandview/model/termtext"
)

// JUnit XML, as CI systems (GitHub Actions reporters, GitLab, Jenkins)
// read it: one test suite for the mail, one test case per assertion, a
// failure's message saying what was expected and what was found.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Output    string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Message is a failure's one line: what was expected, what was found.
func (r Result) Message() string {
	return fmt.Sprintf("expected %s; found %s", r.Expected, r.Found)
}

// WriteJUnit writes the report as JUnit XML: a suite named after the mail,
// a test case per assertion (class "sandview.expect"), text sanitized
// (termtext.Sanitize: it may reach a terminal).
func (rep Report) WriteJUnit(w io.Writer) error {
	suite := junitSuite{Name: termtext.SanitizeLine(fmt.Sprintf("email %s: %s", rep.ID, rep.Subject)), Tests: len(rep.Results), Failures: rep.Failed}
	for _, r := range rep.Results {
		c := junitCase{Name: r.Name, ClassName: "sandview.expect"}
		if r.Passed {
			c.Output = termtext.Sanitize(r.Message())
		} else {
			c.Failure = &junitFailure{Message: termtext.SanitizeLine(r.Message()), Type: "assertion", Text: termtext.Sanitize(r.Detail)}
		}
		suite.Cases = append(suite.Cases, c)
	}
	doc := junitSuites{Name: "sandview email expect", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JUnit XML: %w", err)
	}
	if _, err := io.WriteString(w, xml.Header+string(out)+"\n"); err != nil {
		return fmt.Errorf("write JUnit XML: %w", err)
	}
	return nil
}
