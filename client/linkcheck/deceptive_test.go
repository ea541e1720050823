package linkcheck_test

import (
	"reflect"
	"testing"

	"sandview/client/linkcheck"
)

func TestDeceptive(t *testing.T) {
	for _, c := range []struct {
		text, href  string
		shown, real string // "" when not deceptive
	}{
		{"https://pay\u200bpal.com/login", "https://evil.test/x", "paypal.com", "evil.test"},
		{"https://paypal.com/login", "https://evil.test/x", "paypal.com", "evil.test"},
		{"www.pay\u00adpal.com", "https://evil.test/x", "www.paypal.com", "evil.test"},
		{"\u202ehttps://paypal.com\u202c", "http://evil.test/", "paypal.com", "evil.test"},
		{"pay\u200dpal.com/login", "https://login.evil.test/", "paypal.com", "login.evil.test"},
		{" (https://bank.example.co.uk) ", "https://bank.example.com/", "bank.example.co.uk", "bank.example.com"},
		{"paypal.com", "https://xn--pypal-4ve.com/", "paypal.com", "xn--pypal-4ve.com"},
		{"https://paypal.com", "https://93.184.216.34/", "paypal.com", "93.184.216.34"},
		{"https://evil.test/x", "https://evil.test/x", "", ""},
		{"evil.test", "https://evil.test/x", "", ""},
		{"https://www.paypal.com/login", "https://paypal.com/signin", "", ""},
		{"paypal.com", "https://click.mail.paypal.com/t?u=1", "", ""},
		{"PayPal.COM", "https://paypal.com/", "", ""},
		{"Log in to PayPal", "https://evil.test/x", "", ""},
		{"Click here", "https://evil.test/", "", ""},
		{"report.pdf", "https://files.example.org/r", "", ""},
		{"Version 2.0", "https://example.org/", "", ""},
		{"support@paypal.com", "https://evil.test/", "", ""},
		{"https://paypal.com", "mailto:x@evil.test", "", ""},
		{"https://paypal.com", "javascript:alert(1)", "", ""},
		{"", "https://evil.test/", "", ""},
	} {
		d, ok := linkcheck.Deceptive(c.text, c.href)
		if ok != (c.real != "") || d.Shown != c.shown || d.Real != c.real {
			t.Errorf("Deceptive(%q, %q) = %+v, %v; want shown %q real %q", c.text, c.href, d, ok, c.shown, c.real)
		}
	}
	d, _ := linkcheck.Deceptive("https://pay\u200bpal.com/login", "https://evil.test/x")
	if d.Warning() != "⚠ link goes to evil.test, not paypal.com" {
		t.Errorf("warning %q", d.Warning())
	}
}

func TestDeceptions(t *testing.T) {
	doc := `<p><a href="https://evil.test/x">https://pay&#8203;pal.com/login</a>
		<a href=" https://evil.test/x ">https://paypal.com</a>
		<a href="https://example.org/a">example.org</a> <a href="https://example.org/b">Read more</a>
		<a href="https://other.test/"><b>www.bank</b>.example.com</a></p>`
	want := []linkcheck.Deception{
		{Link: "https://evil.test/x", Shown: "paypal.com", Real: "evil.test"},
		{Link: "https://other.test/", Shown: "www.bank.example.com", Real: "other.test"},
	}
	if got := linkcheck.Deceptions(doc); !reflect.DeepEqual(got, want) {
		t.Errorf("Deceptions = %+v, want %+v", got, want)
	}
	if got := linkcheck.Deceptions(""); got != nil {
		t.Errorf("no HTML: %+v", got)
	}
}
