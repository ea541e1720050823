package search

import (
	"fmt"
	"sync"
	"testing"

	"sandview/model"
)

func TestIndexFoldsEachEmailOnce(t *testing.T) {
	emails := make([]model.Email, 1000)
	for i := range emails {
		emails[i] = model.Email{ID: fmt.Sprint(i), InboxHash: "in", HasContent: true,
			Subject: fmt.Sprintf("Mail %d", i), Text: fmt.Sprintf("Body NUMBER %d", i)}
	}
	q := mustParse(t, "number -subject:7")
	cold := testing.AllocsPerRun(1, func() { NewIndex().Filter(q, emails) })
	idx := NewIndex()
	warm := testing.AllocsPerRun(10, func() {
		if got := len(idx.Filter(q, emails)); got != 729 {
			t.Fatalf("%d matches, want 729", got)
		}
	})
	if cold < float64(len(emails)) || warm > 20 {
		t.Errorf("allocations: cold %v, warm %v; want at least one per email cold and only the result warm", cold, warm)
	}
	if len(idx.docs) != len(emails) {
		t.Errorf("the index holds %d emails, want %d", len(idx.docs), len(emails))
	}
	idx.Forget(emails[0])
	if len(idx.docs) != len(emails)-1 {
		t.Errorf("after Forget the index holds %d emails, want %d", len(idx.docs), len(emails)-1)
	}
}

func TestIndexPrepareFoldsAhead(t *testing.T) {
	emails := benchEmails(200)
	q := mustParse(t, "münchen -auth:pass")
	idx := NewIndex()
	idx.Prepare(emails)
	if n := testing.AllocsPerRun(1, func() { idx.Filter(q, emails) }); n > 10 {
		t.Errorf("Filter after Prepare allocates %v times, want only its result", n)
	}
	if fmt.Sprint(idx.Filter(q, emails)) != fmt.Sprint(NewIndex().Filter(q, emails)) {
		t.Error("a prepared index matches differently")
	}
}

func TestIndexRefoldsWhenContentArrives(t *testing.T) {
	idx := NewIndex()
	q := mustParse(t, "password")
	e := model.Email{ID: "1", InboxHash: "in", Subject: "Hello"}
	if idx.Match(q, e) {
		t.Fatal("an email without content matched a body term")
	}
	e.HasContent, e.Text = true, "your PASSWORD"
	if !idx.Match(q, e) {
		t.Error("the body loaded later is not searched")
	}
}

func TestIndexKeysByInboxAndID(t *testing.T) {
	idx := NewIndex()
	emails := []model.Email{
		{ID: "1", InboxHash: "a", Subject: "alpha", HasContent: true},
		{ID: "1", InboxHash: "b", Subject: "beta", HasContent: true},
		{Subject: "alpha without id", HasContent: true},
		{Subject: "beta without id", HasContent: true},
	}
	for _, tc := range []struct {
		query string
		want  []int
	}{{"alpha", []int{0, 2}}, {"beta", []int{1, 3}}, {"-id", []int{0, 1}}} {
		got := idx.Filter(mustParse(t, tc.query), emails)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q matches %v, want %v", tc.query, got, tc.want)
		}
	}
	if len(idx.docs) != 2 {
		t.Errorf("the index holds %d emails, want 2: emails without an ID are not kept", len(idx.docs))
	}
}

func TestIndexFollowsAListThatChanges(t *testing.T) {
	idx := NewIndex()
	q := mustParse(t, "alpha")
	emails := []model.Email{
		{ID: "1", Subject: "alpha", HasContent: true},
		{Subject: "alpha without id", HasContent: true},
		{Subject: "beta without id", HasContent: true},
	}
	for _, step := range []struct {
		change func()
		want   string
	}{
		{func() {}, "[0 1]"},
		{func() { emails[1], emails[2] = emails[2], emails[1] }, "[0 2]"},
		{func() { emails[0] = model.Email{ID: "2", Subject: "beta", HasContent: true} }, "[2]"},
		{func() { emails = append([]model.Email{{ID: "3", Subject: "alpha"}}, emails...) }, "[0 3]"},
		{func() { idx.Forget(emails[0]); emails[0].Subject = "beta" }, "[3]"},
	} {
		step.change()
		if got := fmt.Sprint(idx.Filter(q, emails)); got != step.want {
			t.Errorf("Filter = %s, want %s", got, step.want)
		}
	}
}

func TestIndexFilterEmptyQueryKeepsAll(t *testing.T) {
	got := NewIndex().Filter(mustParse(t, "in:all"), fixtures())
	if fmt.Sprint(got) != "[0 1 2 3 4]" {
		t.Errorf("Filter = %v, want every position", got)
	}
}

func TestIndexConcurrentUse(t *testing.T) {
	idx := NewIndex()
	emails := fixtures()
	queries := []Query{mustParse(t, "password"), mustParse(t, "-is:read"), mustParse(t, "auth:fail")}
	want := []int{2, 3, 1}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(queries))
	for round := range 4 {
		for i, q := range queries {
			wg.Go(func() {
				if got := len(idx.Filter(q, emails)); got != want[i] {
					errs <- fmt.Sprintf("%s: %d matches, want %d", q, got, want[i])
				}
				if round == 3 {
					idx.Forget(emails[i])
				}
				idx.Match(q, emails[i])
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
