package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sandview/server/servertest"
)

// TestMCPDocsConfig: each mcpServers snippet of docs/mcp.md that runs
// sandview works as written, the agent's command run by the SDK's client:
// with `sandview --local` running, and with the server saved by `sandview
// config`. It lists the tools, and the inbox create_inbox makes is in the
// keystore the CLI reads.
func TestMCPDocsConfig(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	var configs [][]string
	for _, block := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(string(text), -1) {
		var cfg struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal([]byte(block[1]), &cfg); err != nil {
			t.Fatalf("docs/mcp.md: %v in %s", err, block[1])
		}
		server, ok := cfg.MCPServers["sandview"]
		if !ok || server.Command != "sandview" || len(server.Args) == 0 || server.Args[0] != "mcp" {
			t.Fatalf("docs/mcp.md: not a sandview mcp server: %s", block[1])
		}
		configs = append(configs, server.Args)
	}
	if len(configs) != 2 {
		t.Fatalf("docs/mcp.md has %d snippets, want the --local one and the configured one", len(configs))
	}
	for _, args := range configs {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			home := t.TempDir()
			// Not t.Context(): that ends before the cleanups that stop the process.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			t.Cleanup(cancel)
			h := &cli{t: t, home: home, ctx: ctx}
			list := []string{"--home", home, "inbox", "list", "--json"}
			if slices.Contains(args, "--local") {
				startServerProcess(t, home, "--local", "--home", home, "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0")
				list = append(list, "--local")
			} else {
				srv := servertest.Start(t)
				h.mustRaw("--home", home, "config", "--url", srv.URL(), "--api-key", servertest.APIKey)
			}
			c := startMCP(t, ctx, []string{"SANDVIEW_HOME=" + home}, args...)
			tools, err := c.session.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 5 {
				t.Fatalf("tools: %v, %v", tools, err)
			}
			inbox := callJSON[mcpInbox](ctx, c, "create_inbox", map[string]any{})
			if out := h.mustRaw(list...).stdout; !strings.Contains(out, inbox.Address) {
				t.Fatalf("%v lacks %s: %s", list, inbox.Address, out)
			}
		})
	}
}
