package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"sandview/model"
)

// fakeService is an in-memory service for Update tests; every call is
// recorded.
type fakeService struct {
	mu      sync.Mutex
	inboxes []model.Inbox
	emails  map[string][]model.Email
	raw     map[string][]byte
	calls   []string
	fail    error // returned by every mutating call when set
	hooks   fakeWebhooks
}

func newFakeService(inboxes ...model.Inbox) *fakeService {
	return &fakeService{inboxes: inboxes, emails: map[string][]model.Email{}, raw: map[string][]byte{}}
}

func (f *fakeService) record(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeService) called(prefix string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

func (f *fakeService) Inboxes() []model.Inbox {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]model.Inbox(nil), f.inboxes...)
}

func (f *fakeService) CreateInbox(_ context.Context, in createInboxInput) (model.Inbox, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("create %s %s %s", in.TTL, in.Address, in.Encryption)
	if f.fail != nil {
		return model.Inbox{}, f.fail
	}
	addr := in.Address
	if addr == "" {
		addr = "new@sandbox.test"
	}
	inbox := model.Inbox{EmailAddress: addr, ExpiresAt: testNow.Add(in.TTL), Encrypted: in.Encryption != model.EncryptionPlain}
	f.inboxes = append(f.inboxes, inbox)
	return inbox, nil
}

func (f *fakeService) DeleteInbox(_ context.Context, address string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("deleteInbox %s", address)
	return f.fail
}

func (f *fakeService) ExportInbox(address, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("export %s %s", address, path)
	if f.fail != nil {
		return f.fail
	}
	return os.WriteFile(path, []byte(`{"version":1}`), 0o600)
}

func (f *fakeService) ImportInbox(_ context.Context, path string) (model.Inbox, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("import %s", path)
	if _, err := os.Stat(path); err != nil {
		return model.Inbox{}, fmt.Errorf("import inbox: %w", err)
	}
	if f.fail != nil {
		return model.Inbox{}, f.fail
	}
	return model.Inbox{EmailAddress: "imported@sandbox.test", ExpiresAt: testNow.Add(testHour)}, nil
}

func (f *fakeService) Emails(_ context.Context, address string) ([]model.Email, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("emails %s", address)
	return append([]model.Email(nil), f.emails[address]...), nil
}

func (f *fakeService) Email(_ context.Context, address, id string) (model.Email, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("email %s %s", address, id)
	for _, e := range f.emails[address] {
		if e.ID == id {
			e.HasContent = true
			return e, nil
		}
	}
	return model.Email{}, errors.New("email not found")
}

func (f *fakeService) Raw(_ context.Context, address, id string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("raw %s %s", address, id)
	if r, ok := f.raw[id]; ok {
		return r, nil
	}
	return nil, errors.New("raw not found")
}

func (f *fakeService) MarkRead(_ context.Context, address, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("markRead %s %s", address, id)
	return f.fail
}

func (f *fakeService) DeleteEmail(_ context.Context, address, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("deleteEmail %s %s", address, id)
	return f.fail
}

func (f *fakeService) SyncStatus(_ context.Context, address string) (model.SyncStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]string, 0, len(f.emails[address]))
	for _, e := range f.emails[address] {
		ids = append(ids, e.ID)
	}
	return model.SyncStatus{EmailCount: len(ids), EmailsHash: strings.Join(ids, ",")}, nil
}

// addEmail delivers a new email to the fake.
func (f *fakeService) addEmail(address string, e model.Email) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.emails[address] = append([]model.Email{e}, f.emails[address]...)
}
