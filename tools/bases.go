package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/tokens"
	"vaultmcp/vault/bases"
	"vaultmcp/vault/bases/indexsource"
	"vaultmcp/vault/edit"
)

// QueryBaseArgs are query_base's arguments.
type QueryBaseArgs struct {
	// Path is a .base file; Base an inline base (its YAML). One of them.
	Path string `json:"path"`
	Base string `json:"base"`
	// View names the view; "" is the first.
	View string `json:"view"`
	// EmbeddedIn is the note that embeds the base, which `this` then
	// stands for.
	EmbeddedIn string `json:"embedded_in"`
	Paging
}

// QueryBaseResult is query_base's answer.
type QueryBaseResult struct {
	Path    string         `json:"path,omitempty"`
	View    string         `json:"view"`
	Type    string         `json:"type"`
	Columns []bases.Column `json:"columns"`
	Total   int            `json:"total"`
	Rows    []BaseRow      `json:"rows"`
	Groups  []BaseGroup    `json:"groups,omitempty"`
	// Summaries are the view's summaries over all its rows.
	Summaries []bases.Summary  `json:"summaries,omitempty"`
	Errors    *bases.RowErrors `json:"errors,omitempty"`
	PageInfo
}

// BaseRow is one row of a view: the file and its values by column.
type BaseRow struct {
	Path   string      `json:"path"`
	Values edit.Object `json:"values"`
	// Group is the row's group, an index into the answer's groups.
	Group *int `json:"group,omitempty"`
}

// BaseGroup is one group of a grouped view that this page shows rows
// of: the view's rows [start, start+count) share key.
type BaseGroup struct {
	Key   bases.Value `json:"key"`
	Start int         `json:"start"`
	Count int         `json:"count"`
}

// basesSource returns the index's files for the engine.
func (d Deps) basesSource() *indexsource.Source {
	if d.Bases != nil {
		return d.Bases
	}
	return indexsource.New(d.Index, d.Vault.Root(), nil)
}

// QueryBase is query_base's work: one view of a base answered from the
// live index, paged.
func QueryBase(ctx context.Context, d Deps, a QueryBaseArgs) (*QueryBaseResult, error) {
	if (a.Path == "") == (a.Base == "") {
		return nil, badInput("give path (a .base file) or base (a base's YAML), not both")
	}
	offset, limit := a.bounds(defaultPageSize)
	if limit < 1 {
		return nil, badInput("limit must be at least 1")
	}
	src, err := d.basesSource().Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	text, rel := []byte(a.Base), ""
	if a.Path != "" {
		if !strings.EqualFold(path.Ext(a.Path), ".base") {
			return nil, badInput("%s is not a .base file; give a base file's path, or the base's YAML as base", a.Path)
		}
		f, err := d.Vault.ReadFile(ctx, a.Path, bases.MaxBaseBytes+1)
		if err != nil {
			return nil, err
		}
		text, rel = f.Data, f.Path.Rel
	}
	b, err := bases.Parse(text)
	if err != nil {
		return nil, baseError(a, err)
	}
	q, err := bases.Compile(b, a.View)
	if err != nil {
		return nil, baseError(a, err)
	}
	var this *bases.File
	if rel != "" {
		this, _ = src.File(rel)
	}
	if a.EmbeddedIn != "" {
		p, err := d.Vault.ResolveFor(ctx, a.EmbeddedIn)
		if err != nil {
			return nil, err
		}
		f, ok := src.File(p.Rel)
		if !ok {
			return nil, badInput("embedded_in: %s is not a file of the vault", a.EmbeddedIn)
		}
		this = f
	}
	res, err := q.Run(ctx, src, bases.Options{This: this, Offset: offset, Limit: limit})
	if err != nil {
		return nil, baseError(a, err)
	}
	rows := make([]BaseRow, len(res.Rows))
	for i, r := range res.Rows {
		vals := make(edit.Object, len(r.Values))
		for c, v := range r.Values {
			vals[c] = edit.Member{Key: res.Columns[c].ID, Value: v}
		}
		rows[i] = BaseRow{Path: r.Path, Values: vals}
	}
	s := paginate(a.Paging, res.Total, defaultPageSize, "rows")
	s.End = s.Start + len(rows)
	s = s.fit(a.Paging, d.pageTokens(), func(i int) int {
		b, _ := json.Marshal(rows[i])
		return tokens.Estimate(b)
	})
	rows = keep(rows, s)
	out := &QueryBaseResult{Path: rel, View: res.View, Type: res.Type, Columns: res.Columns, Total: res.Total, Rows: rows, Summaries: res.Summaries, Errors: res.Errors, PageInfo: s.info()}
	// The groups this page shows rows of; each row points at its own.
	for i := 0; i < len(rows) && res.Groups != nil; i++ {
		g := res.Groups[*res.Rows[i].Group]
		if n := len(out.Groups); n == 0 || out.Groups[n-1].Start != g.Start {
			out.Groups = append(out.Groups, BaseGroup{Key: g.Key, Start: g.Start, Count: g.Count})
		}
		k := len(out.Groups) - 1
		rows[i].Group = &k
	}
	return out, nil
}

// baseError phrases a base's own errors (its YAML, an unknown view, a
// function the engine does not know) as the client's to fix.
func baseError(a QueryBaseArgs, err error) error {
	var be *bases.Error
	if !errors.As(err, &be) {
		return err
	}
	if a.Path != "" {
		return badInput("%s: %s", a.Path, be.Error())
	}
	return badInput("%s", be.Error())
}

// queryBaseText is query_base's readable answer: the rows, one a line,
// under their groups' headings.
func queryBaseText(r *QueryBaseResult) string {
	var b strings.Builder
	name := r.View
	if name == "" {
		name = "(unnamed)"
	}
	fmt.Fprintf(&b, "View %q (%s): %d rows", name, r.Type, r.Total)
	if len(r.Rows) > 0 && len(r.Rows) < r.Total {
		fmt.Fprintf(&b, "; %d shown", len(r.Rows))
	}
	b.WriteString("\n")
	group := -1
	for _, row := range r.Rows {
		if row.Group != nil && *row.Group != group {
			group = *row.Group
			g := r.Groups[group]
			key, _ := json.Marshal(g.Key)
			fmt.Fprintf(&b, "## %s (%d)\n", key, g.Count)
		}
		b.WriteString("- " + row.Path)
		for i, m := range row.Values {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString(", ")
			}
			v, _ := json.Marshal(m.Value)
			b.WriteString(m.Key + "=" + string(v))
		}
		b.WriteString("\n")
	}
	for _, s := range r.Summaries {
		v, _ := json.Marshal(s.Value)
		if s.Error != "" {
			v = []byte(s.Error)
		}
		fmt.Fprintf(&b, "%s of %s: %s\n", s.Name, s.Property, v)
	}
	if r.Errors != nil {
		fmt.Fprintf(&b, "%d evaluation errors, first: %s\n", r.Errors.Count, r.Errors.First[0])
	}
	if r.Notice != "" {
		b.WriteString(r.Notice + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// queryBaseOutputSchema is kept short: tools/list is paid for in every
// session (see TestToolsListBudget).
var queryBaseOutputSchema = json.RawMessage(`{"type": "object", "properties": {"view": {"type": "string"}, "columns": {"type": "array"},
  "total": {"type": "integer"}, "rows": {"type": "array"}, "groups": {"type": "array"}, "summaries": {"type": "array"}, "next_offset": {"type": "integer"}},
  "required": ["view", "columns", "total", "rows"]}`)

// QueryBaseTool is query_base; QueryBase does its work.
func QueryBaseTool(d Deps) server.ServerTool {
	opts := []mcp.ToolOption{
		mcp.WithDescription("An Obsidian Base (.base) view answered as Obsidian shows it: filters, formulas, sort, limit, groups; rows with the view's order properties. " +
			"path (+view, default the first) or inline base YAML. Without a base file, use query_notes. docs/bases.md."),
		mcp.WithString("path", mcp.Description("A .base file")),
		mcp.WithString("base", mcp.Description("A base's YAML, instead of path")),
		mcp.WithString("view", mcp.Description("View name; default the first")),
		mcp.WithString("embedded_in", mcp.Description("Note embedding the base; this stands for it")),
	}
	opts = append(opts, pagingOptions("rows", defaultPageSize)...)
	opts = append(opts, mcp.WithRawOutputSchema(queryBaseOutputSchema), annotate("Query a base", true, false, true))
	tool := mcp.NewTool("query_base", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a QueryBaseArgs) (*mcp.CallToolResult, error) {
		res, err := QueryBase(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return structuredResult(res, queryBaseText(res))
	})}
}
