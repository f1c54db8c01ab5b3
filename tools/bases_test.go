package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"vaultmcp/tools"
)

var basesNotes = map[string]string{
	"Projects/Alpha.md": "---\nstatus: open\ndue: 2026-03-01\npriority: 3\ntags: [project]\n---\n# Alpha\n[[Home]] ![[pic.png]]",
	"Projects/Beta.md":  "---\nstatus: done\ndue: 2026-01-15\npriority: 1\ntags: [project]\n---\n# Beta\n",
	"Projects/Gamma.md": "---\nstatus: open\ndue: 2026-02-01\npriority: 2\n---\n# Gamma\n#project/sub [[Alpha]]",
	"Home.md":           "# Home\n![[Open projects.base]]",
	"pic.png":           "\x89PNG",
	"Open projects.base": `filters:
  and:
    - file.hasTag("project")
    - 'status != "done"'
formulas:
  days_left: '(due - date("2026-01-01")) / 86400000'
  label: 'file.basename + " (" + formula.days_left + "d)"'
properties:
  formula.label:
    displayName: Label
views:
  - type: table
    name: By due date
    order: [file.name, status, due, formula.label, file.embeds]
    sort:
      - property: due
        direction: ASC
  - type: table
    name: Here
    filters: 'file.hasLink(this.file)'
    order: [file.name]
  - type: cards
    name: Grouped
    groupBy:
      property: status
      direction: DESC
    order: [file.name]
    summaries:
      priority: Sum
`,
}

func TestQueryBaseTool(t *testing.T) {
	g := newNotesVault(t, basesNotes)
	ctx := context.Background()
	res, err := tools.QueryBase(ctx, g.d, tools.QueryBaseArgs{Path: "Open projects.base"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	want := `{"path":"Open projects.base","view":"By due date","type":"table","columns":[{"id":"file.name","name":"file.name"},{"id":"status","name":"status"},{"id":"due","name":"due"},{"id":"formula.label","name":"Label"},{"id":"file.embeds","name":"file.embeds"}],"total":2,"rows":[` +
		`{"path":"Projects/Gamma.md","values":{"file.name":"Gamma.md","status":"open","due":"2026-02-01","formula.label":"Gamma (31d)","file.embeds":[]}},` +
		`{"path":"Projects/Alpha.md","values":{"file.name":"Alpha.md","status":"open","due":"2026-03-01","formula.label":"Alpha (59d)","file.embeds":["[[pic.png]]"]}}]}`
	if string(b) != want {
		t.Errorf("query_base:\n%s\nwant\n%s", b, want)
	}
	// this: the base file (nothing links to it but Home's embed), or the
	// note embedding it.
	res, err = tools.QueryBase(ctx, g.d, tools.QueryBaseArgs{Path: "Open projects.base", View: "Here", EmbeddedIn: "Projects/Alpha.md"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Rows[0].Path != "Projects/Gamma.md" {
		t.Errorf("embedded in Alpha: %+v", res)
	}
	// Groups, paged.
	limit := 1
	res, err = tools.QueryBase(ctx, g.d, tools.QueryBaseArgs{Path: "Open projects.base", View: "Grouped", Paging: tools.Paging{Limit: &limit, Offset: 1}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(res)
	if want := `"total":2,"rows":[{"path":"Projects/Gamma.md","values":{"file.name":"Gamma.md"},"group":0}],"groups":[{"key":"open","start":0,"count":2}],"summaries":[{"property":"priority","name":"Sum","value":5}]`; !strings.Contains(string(b), want) {
		t.Errorf("grouped page: %s", b)
	}
	// An inline base.
	res, err = tools.QueryBase(ctx, g.d, tools.QueryBaseArgs{Base: "filters: 'priority >= 2'\nviews:\n  - type: table\n    order: [priority]\n    sort: [{property: priority, direction: DESC}]\n"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || res.Rows[0].Path != "Projects/Alpha.md" {
		t.Errorf("inline: %+v", res)
	}

	h := g.serve()
	text := h.ok("query_base", `{"path": "Open projects.base"}`)
	if !strings.HasPrefix(text, `View "By due date" (table): 2 rows`+"\n- Projects/Gamma.md: file.name=\"Gamma.md\"") {
		t.Errorf("text: %s", text)
	}
	h.fails("query_base", `{"path": "Open projects.base", "view": "Nope"}`, `Open projects.base: views: no view "Nope"; the base's views are "By due date", "Here", "Grouped"`)
	h.fails("query_base", `{"base": "formulas:\n  x: 'price.toFixd(2)'\n"}`, `formula "x" at 1:7: unknown function toFixd()`)
	h.fails("query_base", `{"base": "views: ["}`, "not valid YAML")
	h.fails("query_base", `{"path": "Home.md"}`, "not a .base file")
	h.fails("query_base", `{}`, "give path")
	h.fails("query_base", `{"path": "Missing.base"}`, "Missing.base")

	// Reads its own writes: a renamed note is listed at its new path.
	h.ok("rename_file", `{"old_path": "Projects/Gamma.md", "new_path": "Archive/Gamma2.md"}`)
	res, err = tools.QueryBase(ctx, g.d, tools.QueryBaseArgs{Path: "Open projects.base"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || res.Rows[0].Path != "Archive/Gamma2.md" {
		t.Errorf("after rename: %+v", res.Rows)
	}
}
