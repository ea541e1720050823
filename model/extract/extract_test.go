package extract

import (
	"reflect"
	"testing"

	"sandview/model"
)

func TestCodesIn(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Your verification code is 482913.", []string{"482913"}},
		{"Your verification code is:\n\n    482913\n\nIt expires in 10 minutes.", []string{"482913"}},
		{"482913 is your Acme code", []string{"482913"}},
		{"Use the one-time password AB12CD to sign in", []string{"AB12CD"}},
		{"Your PIN: 7731", []string{"7731"}},
		{"OTP 0042 for order 99881234", []string{"0042", "99881234"}},
		{"Order A1234 shipped. Your verification code is 987654", []string{"987654", "A1234"}},
		{"Your code: https://app.example/c?token=123456 or mail otp-1234@example.org", nil},
		{"Welcome to Acme. Your order 123456 shipped.", nil},
		{"Your verification code is ABCDEF", nil},
		{"code 12 or 123456789", nil},
		{"", nil},
	} {
		if got := CodesIn(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("CodesIn(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestExtractor(t *testing.T) {
	mail := model.Email{
		Subject: "Confirm your account",
		Text:    "Welcome! Your code is 5521.\nhttps://app.example/confirm?token=42",
		HTML:    `<p>Welcome! <a href="https://app.example/confirm?token=42">Confirm</a></p>`,
		Links:   []string{"https://app.example/confirm?token=42", "https://app.example/unsubscribe"},
	}
	htmlOnly := model.Email{Subject: "Sign in", HTML: "<p>Your <b>sign-in code</b> is</p><h1>739201</h1>"}
	for _, c := range []struct {
		spec string
		mail model.Email
		want string
		ok   bool
	}{
		{"link", mail, "https://app.example/confirm?token=42", true},
		{"code", mail, "5521", true},
		{`token=(\d+)`, mail, "42", true},
		{`^Confirm \w+`, mail, "Confirm your", true},
		{"code", htmlOnly, "739201", true},
		{"link", htmlOnly, "", false},
		{"code", model.Email{Text: "nothing here"}, "", false},
		{`token=(\d+)`, htmlOnly, "", false},
	} {
		x, err := Parse(c.spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.spec, err)
		}
		if got, ok := x.From(c.mail); got != c.want || ok != c.ok {
			t.Errorf("%s from %q = %q, %v; want %q, %v", x, c.mail.Subject, got, ok, c.want, c.ok)
		}
	}
	for _, bad := range []string{"", "(unclosed"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) took it", bad)
		}
	}
}
