package tuitest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"sandview/client"
	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/service"
)

// Service is an in-memory service.Service for tests: it serves the mail
// calls (listings streamed or in one piece), the webhook calls and the
// live feed (Subscribe, then Receiver to push), and records every call as
// a line ("emails demo@sandbox.test"). Each part of the service is its
// own fake (mailFake, hookFake, connFake, chaosFake); they share one
// callLog, so one lock orders all calls and one log records them.
type Service struct {
	*callLog
	*mailFake
	*hookFake
	*connFake
	*chaosFake
}

// The fake serves all of service.Service.
var _ service.Service = (*Service)(nil)

// callLog is the lock every fake call holds, the log of the calls and the
// failure the mutating calls return.
type callLog struct {
	mu    sync.Mutex
	calls []string
	fail  error // returned by every mutating call when set
}

// mailFake serves the inbox and email calls and the keystore rescans.
type mailFake struct {
	*callLog
	inboxes []model.Inbox
	emails  map[string][]model.Email
	raw     map[string][]byte
	// keystore holds inboxes another program saved, loaded on the next
	// rescan; vanished the loaded ones whose keystore files went away.
	keystore []model.Inbox
	vanished []string
	gone     map[string]bool // inboxes the server no longer knows
}

// connFake serves the connection calls: the live feed and the API key check.
type connFake struct {
	*callLog
	sink   feed.Receiver
	keyBad bool // the server refuses the API key
}

// NewService returns a service holding inboxes and no email.
func NewService(inboxes ...model.Inbox) *Service {
	log := &callLog{}
	return &Service{
		callLog:   log,
		mailFake:  &mailFake{callLog: log, inboxes: inboxes, emails: map[string][]model.Email{}, raw: map[string][]byte{}, gone: map[string]bool{}},
		hookFake:  &hookFake{callLog: log},
		connFake:  &connFake{callLog: log},
		chaosFake: &chaosFake{callLog: log, chaos: map[string]model.ChaosConfig{}},
	}
}

// NewFixtureService returns a service holding the fixture inboxes, the
// fixture emails in the demo inbox and the raw source of the first one.
func NewFixtureService() *Service {
	s := NewService(Inboxes()...)
	s.emails[DemoAddr] = Emails()
	s.raw["e1"] = RawE1()
	return s
}

// Record adds a call to the log (tests record their openers here).
func (f *callLog) Record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(format, args...)
}

func (f *callLog) record(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

// Called reports whether a recorded call starts with prefix.
func (f *callLog) Called(prefix string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.ContainsFunc(f.calls, func(c string) bool { return strings.HasPrefix(c, prefix) })
}

// Calls returns the recorded calls.
func (f *callLog) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// Fail makes every mutating call fail with err (nil: succeed again).
func (f *callLog) Fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = err
}

// SetEmails replaces the emails of an inbox.
func (f *mailFake) SetEmails(address string, emails []model.Email) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.emails[address] = emails
}

// AddEmail delivers a new email, listed first.
func (f *mailFake) AddEmail(address string, e model.Email) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.emails[address] = append([]model.Email{e}, f.emails[address]...)
}

// Subscribe keeps the receiver for Receiver until stop is called.
func (f *connFake) Subscribe(sink feed.Receiver) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("subscribe")
	f.sink = sink
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.sink = nil
	}, nil
}

// Receiver is the subscribed feed, to push to as the client would (nil when
// nothing is subscribed).
func (f *connFake) Receiver() feed.Receiver {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sink
}

// Inboxes lists the inboxes.
func (f *mailFake) Inboxes() []model.Inbox {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.inboxes)
}

// CreateInbox adds an inbox (new@sandbox.test unless an address is given).
func (f *mailFake) CreateInbox(_ context.Context, opts client.CreateInboxOptions) (model.Inbox, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("create %s %s %s", opts.TTL, opts.EmailAddress, opts.Encryption)
	if f.fail != nil {
		return model.Inbox{}, f.fail
	}
	addr := opts.EmailAddress
	if addr == "" {
		addr = "new@sandbox.test"
	}
	inbox := model.Inbox{EmailAddress: addr, ExpiresAt: Now().Add(opts.TTL), Encrypted: opts.Encryption != model.EncryptionPlain}
	f.inboxes = append(f.inboxes, inbox)
	return inbox, nil
}

// DeleteInbox records the deletion.
func (f *mailFake) DeleteInbox(_ context.Context, address string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("deleteInbox %s", address)
	return f.fail
}

// ExportInbox writes a stub export file.
func (f *mailFake) ExportInbox(address, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("export %s %s", address, path)
	if f.fail != nil {
		return f.fail
	}
	return os.WriteFile(path, []byte(`{"version":1}`), 0o600)
}

// ImportInbox returns imported@sandbox.test when path exists.
func (f *mailFake) ImportInbox(_ context.Context, path string) (model.Inbox, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("import %s", path)
	if _, err := os.Stat(path); err != nil {
		return model.Inbox{}, fmt.Errorf("import inbox: %w", err)
	}
	if f.fail != nil {
		return model.Inbox{}, f.fail
	}
	return model.Inbox{EmailAddress: "imported@sandbox.test", ExpiresAt: Now().Add(time.Hour)}, nil
}

// Emails lists the emails of an inbox; one the server no longer knows
// answers as the client does.
func (f *mailFake) Emails(_ context.Context, address string) ([]model.Email, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("emails %s", address)
	if f.gone[address] {
		return nil, &client.InboxNotFoundError{Address: address}
	}
	return slices.Clone(f.emails[address]), nil
}

// EachEmail lists an inbox as Emails does (and records the same call),
// passing the emails to fn one by one, newest first, as the client's
// streamed listing does; an error of fn or the end of ctx ends it.
func (f *mailFake) EachEmail(ctx context.Context, address string, fn func(e model.Email, openErr error) error) error {
	emails, err := f.Emails(ctx, address)
	if err != nil {
		return err
	}
	for _, e := range emails {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(e, nil); err != nil {
			return err
		}
	}
	return nil
}

// Forget makes the server forget an inbox: its listings fail as not
// found.
func (f *mailFake) Forget(address string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gone[address] = true
}

// SaveToKeystore saves an inbox to the keystore as another program
// would; the next rescan loads it.
func (f *mailFake) SaveToKeystore(in model.Inbox) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keystore = append(f.keystore, in)
}

// RemoveFromKeystore removes a loaded inbox's keystore file as another
// program would.
func (f *mailFake) RemoveFromKeystore(address string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.vanished = append(f.vanished, address)
}

// Rescan loads the inboxes saved to the keystore since the last one.
func (f *mailFake) Rescan(_ context.Context, force bool) (bool, []string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("rescan %v", force)
	changed := len(f.keystore) > 0 || len(f.vanished) > 0
	f.inboxes = append(f.inboxes, f.keystore...)
	vanished := f.vanished
	f.keystore, f.vanished = nil, nil
	return changed, vanished, nil
}

// RefuseKey makes the server refuse the API key (or accept it again).
func (f *connFake) RefuseKey(refuse bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keyBad = refuse
}

// CheckKey says whether the server accepts the API key.
func (f *connFake) CheckKey(context.Context) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("checkKey")
	return !f.keyBad, nil
}

// DefaultDomain is the domain of the fixture inboxes.
func (f *connFake) DefaultDomain(context.Context) (string, error) { return "sandbox.test", nil }

// Email returns one email with its content.
func (f *mailFake) Email(_ context.Context, address, id string) (model.Email, error) {
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

// Raw returns the raw source of an email.
func (f *mailFake) Raw(_ context.Context, address, id string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("raw %s %s", address, id)
	if r, ok := f.raw[id]; ok {
		return r, nil
	}
	return nil, errors.New("raw not found")
}

// MarkRead records the call.
func (f *mailFake) MarkRead(_ context.Context, address, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("markRead %s %s", address, id)
	return f.fail
}

// DeleteEmail records the call.
func (f *mailFake) DeleteEmail(_ context.Context, address, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("deleteEmail %s %s", address, id)
	return f.fail
}

// SetRaw sets the raw source of an email.
func (f *mailFake) SetRaw(id string, raw []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.raw[id] = raw
}
