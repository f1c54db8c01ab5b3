package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"vaultmcp/gitsync"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// listBudgetPerTool is what one tool may cost in the tools/list answer, on
// average over all tools: every session reads the whole list, and many
// clients hand it to the model as it is, so each byte is paid again in
// every conversation. 1,380 bytes is about 345 tokens: room for a precise
// description and schema, none for prose.
const listBudgetPerTool = 1380

// TestToolsListBudget measures the tools/list answer as a client gets it
// and holds its size to the budget; it prints the largest tools to trim
// first when it fails.
func TestToolsListBudget(t *testing.T) {
	v, err := vault.Open(t.TempDir(), vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Stand-ins make every tool listed (no handler runs).
	s, err := mcpserver.New(tools.Deps{Vault: v, Index: &index.Index{}, Git: &gitsync.Repo{}}, "test")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)))
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatal(err)
	}
	n := len(resp.Result.Tools)
	budget := n * listBudgetPerTool
	t.Logf("tools/list: %d bytes for %d tools (%d per tool; budget %d, %d per tool)", len(raw), n, len(raw)/max(n, 1), budget, listBudgetPerTool)
	if len(raw) <= budget {
		return
	}
	type sized struct {
		name string
		size int
	}
	var all []sized
	for _, tool := range resp.Result.Tools {
		var head struct{ Name string }
		_ = json.Unmarshal(tool, &head)
		all = append(all, sized{head.Name, len(tool)})
	}
	slices.SortFunc(all, func(a, b sized) int { return b.size - a.size })
	var top []string
	for _, s := range all[:min(5, len(all))] {
		top = append(top, fmt.Sprintf("%s %d", s.name, s.size))
	}
	t.Errorf("tools/list is %d bytes, over its budget of %d (%d tools × %d); largest: %s",
		len(raw), budget, n, listBudgetPerTool, strings.Join(top, ", "))
}
