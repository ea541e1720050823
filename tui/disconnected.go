package tui

import (
	"context"
	"errors"

	"sandview/model"
)

// errNoService is returned when the model runs without a client.
var errNoService = errors.New("no service connected")

// disconnected is the service of a model built without a client: it holds
// no inboxes and every call fails clearly.
type disconnected struct{}

func (disconnected) Inboxes() []model.Inbox { return nil }
func (disconnected) CreateInbox(context.Context, createInboxInput) (model.Inbox, error) {
	return model.Inbox{}, errNoService
}
func (disconnected) DeleteInbox(context.Context, string) error { return errNoService }
func (disconnected) ExportInbox(string, string) error          { return errNoService }
func (disconnected) ImportInbox(context.Context, string) (model.Inbox, error) {
	return model.Inbox{}, errNoService
}
func (disconnected) Emails(context.Context, string) ([]model.Email, error) { return nil, errNoService }
func (disconnected) Email(context.Context, string, string) (model.Email, error) {
	return model.Email{}, errNoService
}
func (disconnected) Raw(context.Context, string, string) ([]byte, error) { return nil, errNoService }
func (disconnected) MarkRead(context.Context, string, string) error      { return errNoService }
func (disconnected) DeleteEmail(context.Context, string, string) error   { return errNoService }
func (disconnected) SyncStatus(context.Context, string) (model.SyncStatus, error) {
	return model.SyncStatus{}, errNoService
}
