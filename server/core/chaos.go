package core

import (
	"context"
	"encoding/json"
	"fmt"

	"sandview/model"
)

// Chaos returns the chaos config of the inbox hash, {"enabled": false}
// when it has none (chaos.md, section 2).
func (c *Core) Chaos(ctx context.Context, hash string) (model.ChaosConfig, error) {
	var cfg model.ChaosConfig
	data, err := c.store.ChaosConfig(ctx, hash)
	if err != nil || data == nil {
		return cfg, err
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return cfg, fmt.Errorf("decode the chaos config of %s: %w", hash, err)
	}
	return cfg, nil
}

// SetChaos replaces the chaos config of the inbox hash (store.ErrNotFound
// when the store holds no such inbox).
func (c *Core) SetChaos(ctx context.Context, hash string, cfg model.ChaosConfig) error {
	data, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("encode a chaos config: %w", err)
	}
	if err := c.store.PutChaosConfig(ctx, hash, data); err != nil {
		return fmt.Errorf("set the chaos config of %s: %w", hash, err)
	}
	return nil
}
