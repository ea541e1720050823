package tuitest

import (
	"context"

	"sandview/client"
	"sandview/model"
)

// chaosFake serves the chaos calls: each inbox's config as set, or, on
// a server with chaos switched off, client.ChaosDisabledError.
type chaosFake struct {
	*callLog
	chaos    map[string]model.ChaosConfig
	disabled bool
}

// DisableChaosFeature makes the fake a server started without --chaos.
func (f *chaosFake) DisableChaosFeature() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.disabled = true
}

// ChaosOf returns the config an inbox holds.
func (f *chaosFake) ChaosOf(address string) model.ChaosConfig {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.chaos[address]
}

// Chaos records the call and returns the inbox's config.
func (f *chaosFake) Chaos(_ context.Context, address string) (model.ChaosConfig, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("chaos %s", address)
	if f.disabled {
		return model.ChaosConfig{}, &client.ChaosDisabledError{}
	}
	return f.chaos[address], nil
}

// SetChaos records the call and keeps the config.
func (f *chaosFake) SetChaos(_ context.Context, address string, cfg model.ChaosConfig) (model.ChaosConfig, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("setChaos %s", address)
	if f.disabled {
		return model.ChaosConfig{}, &client.ChaosDisabledError{}
	}
	if f.fail != nil {
		return model.ChaosConfig{}, f.fail
	}
	f.chaos[address] = cfg
	return cfg, nil
}

// DisableChaos records the call and keeps {"enabled": false}.
func (f *chaosFake) DisableChaos(_ context.Context, address string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("disableChaos %s", address)
	if f.disabled {
		return &client.ChaosDisabledError{}
	}
	f.chaos[address] = model.ChaosConfig{}
	return f.fail
}
