package corpus

import (
	"strings"
	"testing"
)

func TestAllLoadsEveryMail(t *testing.T) {
	mails, err := All()
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]int{}
	withHTML := 0
	for i, m := range mails {
		if i > 0 && mails[i-1].Name >= m.Name {
			t.Fatalf("mails not ordered by name: %s before %s", mails[i-1].Name, m.Name)
		}
		if m.Email.ID != m.Name || len(m.Raw) == 0 || !m.Email.HasContent {
			t.Fatalf("%s: incomplete mail %+v", m.Name, m.Email)
		}
		sources[strings.Split(m.Name, "/")[0]]++
		if m.Email.HTML != "" {
			withHTML++
		}
	}
	want := map[string]int{"enmime": 89, "chardet": 6, "html2text": 2, "hostile": len(hostileMails())}
	for source, n := range want {
		if sources[source] != n {
			t.Errorf("%d mails from %s; want %d", sources[source], source, n)
		}
	}
	if withHTML < 30 {
		t.Errorf("only %d mails have an HTML body", withHTML)
	}
}

func TestLoadParsesAsTheServerDoes(t *testing.T) {
	m, err := Load("hostile/cjk.eml")
	if err != nil {
		t.Fatal(err)
	}
	e := m.Email
	if e.Subject != "【重要】ご注文の確認 – 注文番号 #12345" || e.From != `"山田太郎" <taro@example.jp>` && e.From != "山田太郎 <taro@example.jp>" {
		t.Fatalf("subject %q, from %q", e.Subject, e.From)
	}
	if !strings.Contains(e.Text, "ご注文ありがとうございます") || e.Headers["message-id"] != "<corpus@sandview.test>" {
		t.Fatalf("text %q, headers %v", e.Text, e.Headers)
	}
	page, err := Load("chardet/shift_jis.html")
	if err != nil {
		t.Fatal(err)
	}
	if page.Email.HTML == "" || strings.ContainsRune(page.Email.HTML, '\uFFFD') {
		t.Fatalf("the Shift_JIS page was not decoded: %.200q", page.Email.HTML)
	}
	if _, err := Load("hostile/missing.eml"); err == nil {
		t.Fatal("loading a missing mail succeeded")
	}
}
