package mcpwire

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// ToolList is the result of tools/list encoded once per view of the tools
// (every tool, or the read-only ones a read-only scope lists), for a
// transport to answer the request with the bytes as they are. mcp-go
// encodes the whole list again at every tools/list, each tool through a
// map and each encoding compacted twice more on its way out: about 0.9 ms
// of CPU and 120 KB of garbage for a list that never changes while the
// server runs, and on a freshly started process (its collector held, its
// code not yet paged in) the largest part of the first tools/list. Each
// tool's part is made ahead of time (toolListings, toollistings_gen.go).
//
// The bytes are what mcp-go answers for the same server (sorted by name,
// writing tools left out under a read-only scope, no pagination):
// TestToolListAnswersAsMCPGo holds them to it. They are encoded from the
// tools its source gives when a view is first asked for, so a ToolList
// serves servers whose tools are fixed once assembled, as mcpserver.New's
// are.
//
// ModernResult is the same list in the envelope mcp-go answers a request of
// protocol 2026-07-28 or later with (mcp-go's client asks in that protocol).
type ToolList struct {
	tools    func() []mcp.Tool
	readOnly func(context.Context) bool
	info     mcp.Implementation
	views    [2]toolListView // every tool, read-only tools
	modern   [2]toolListView // the same in the newer protocol's envelope
}

type toolListView struct {
	once   sync.Once
	result json.RawMessage
	err    error
}

// NewToolList returns the tools/list answers of the server info names,
// each encoded on first use from the tools that tools returns (the ones
// the server lists, in any order). readOnly reports whether a request's
// context is of a read-only scope, whose list leaves out the tools that
// write.
func NewToolList(info mcp.Implementation, tools func() []mcp.Tool, readOnly func(context.Context) bool) *ToolList {
	return &ToolList{tools: tools, readOnly: readOnly, info: info}
}

// Writes reports whether a tool may change the vault: one not marked
// read-only (its ReadOnlyHint annotation). A read-only scope's tools/list
// leaves such tools out, and a call to one is refused.
func Writes(t mcp.Tool) bool {
	ro := t.Annotations.ReadOnlyHint
	return ro == nil || !*ro
}

// Result returns the encoded tools/list result for the scope of ctx.
func (l *ToolList) Result(ctx context.Context) (json.RawMessage, error) {
	return l.result(ctx, &l.views, "{")
}

// ModernResult returns the encoded tools/list result for the scope of ctx
// as mcp-go answers a request of protocol 2026-07-28 or later: the
// result's type, the server's identity (name and version: mcpserver.New
// sets no other field of it) in its _meta and the caching hints (mcp-go's
// defaults: mcpserver.New sets none) ahead of the same tools. It is
// encoded on its own, not from Result's bytes: a session asks in one
// protocol, and a freshly started process pays for every page a second
// copy touches.
func (l *ToolList) ModernResult(ctx context.Context) (json.RawMessage, error) {
	return l.result(ctx, &l.modern, l.envelope())
}

// result is the view of views for the scope in ctx, its result beginning
// with head (what comes before "tools").
func (l *ToolList) result(ctx context.Context, views *[2]toolListView, head string) (json.RawMessage, error) {
	v := &views[0]
	readOnly := l.readOnly(ctx)
	if readOnly {
		v = &views[1]
	}
	v.once.Do(func() { v.result, v.err = l.encode(readOnly, head) })
	return v.result, v.err
}

// envelope is what the newer protocol's result has before its "tools",
// written out rather than encoded through mcp-go's result types:
// encoding/json building its encoders for those types on a freshly
// started process cost more than the rest of the answer.
// TestToolListAnswersAsMCPGo holds the bytes to mcp-go's.
func (l *ToolList) envelope() string {
	quote := func(s string) string {
		b, _ := json.Marshal(s) // a string always encodes
		return string(b)
	}
	return `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":` + quote(l.info.Name) + `,"version":` + quote(l.info.Version) +
		`}},"resultType":"complete","ttlMs":0,"cacheScope":"private",`
}

func (l *ToolList) encode(readOnly bool, head string) (json.RawMessage, error) {
	all := l.tools()
	listed := make([]mcp.Tool, 0, len(all))
	for _, t := range all {
		if readOnly && Writes(t) {
			continue
		}
		listed = append(listed, t)
	}
	slices.SortFunc(listed, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	// The result is head, then "tools":[…]} with each tool as its MarshalJSON
	// writes it: json.Marshal's output, already compact and HTML-escaped,
	// which json.Marshal of the whole result would copy unchanged. Each
	// tool's bytes come from toolListings, made ahead of time: encoding
	// them on a freshly started process took 3–6 ms of CPU, as much as
	// the rest of the first tools/list; a tool not found there is encoded
	// now.
	raw := make([]byte, 0, 64<<10)
	raw = append(raw, head...)
	raw = append(raw, `"tools":[`...)
	for i, t := range listed {
		if i > 0 {
			raw = append(raw, ',')
		}
		if listing, ok := generatedListing(t); ok {
			raw = append(raw, listing...)
			continue
		}
		b, err := t.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encode tools/list: tool %s: %w", t.Name, err)
		}
		raw = append(raw, b...)
	}
	raw = append(raw, "]}"...)
	return slices.Clip(raw), nil // kept for the server's life
}

// toolListingEntry is one tool's encoding in tools/list, with the
// description and input schema it was made from.
type toolListingEntry struct{ name, description, inputSchema, listing string }

// generatedListing is t's entry in toolListings (sorted by name), when its
// description and input schema are the ones the entry was made from. The
// rest of a tool's definition (title, annotations, output schema) is as
// fixed in the code as its name: TestToolListings fails on a stale entry
// (`make generate` rewrites the table), and TestToolListAnswersAsMCPGo on
// an answer that is not mcp-go's.
func generatedListing(t mcp.Tool) (string, bool) {
	i, ok := slices.BinarySearchFunc(toolListings[:], t.Name, func(e toolListingEntry, name string) int {
		return strings.Compare(e.name, name)
	})
	if !ok {
		return "", false
	}
	e := &toolListings[i]
	if e.description != t.Description || e.inputSchema != string(t.RawInputSchema) {
		return "", false
	}
	return e.listing, true
}
