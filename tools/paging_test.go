package tools_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vaultmcp/gitsync"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// newIndexHarness is the server over a vault holding files, with a live
// index built over them.
func newIndexHarness(t *testing.T, files map[string]string, adjust ...func(*tools.Deps)) *harness {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: root}
	for rel, content := range files {
		h.file(rel, content)
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ix := index.New(v, logger)
	v.Observe(ix.Changed)
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := tools.Deps{Vault: v, Index: ix, Logger: logger}
	for _, fn := range adjust {
		fn(&d)
	}
	s, err := mcpserver.New(d, "test", mcpserver.WithOutputValidation())
	if err != nil {
		t.Fatal(err)
	}
	h.v, h.s = v, s
	h.rpc("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}`)
	return h
}

// structured calls a tool that must succeed and returns its text and its
// structured content (nil when it has none).
func (h *harness) structured(tool, args string) (string, map[string]any) {
	h.t.Helper()
	resp := h.rpc("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
	res, _ := resp["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		h.t.Fatalf("%s %s: %v", tool, args, resp)
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	if res["isError"] == true {
		h.t.Fatalf("%s %s: %s", tool, args, text)
	}
	// The concept tools' file_path is absolute, as documented; nothing
	// else may be.
	if strings.Contains(strings.ReplaceAll(text, `"file_path":"`+h.root, ""), h.root) {
		h.t.Errorf("%s %s: the vault's absolute path reached the client: %q", tool, args, text)
	}
	sc, _ := res["structuredContent"].(map[string]any)
	return text, sc
}

// pagingVault has a hub note linked from 25 notes, each also with a broken
// link and a tag of its own, and a long note for read_file; and a concept
// with 25 narrower ones, one of which has six of its own.
func pagingVault() map[string]string {
	files := map[string]string{"Hub.md": "# Hub\n#hub\n"}
	for i := 1; i <= 25; i++ {
		files[fmt.Sprintf("notes/Note %02d.md", i)] = fmt.Sprintf("# Note %d\nSee [[Hub]] and [[Missing %02d]].\n#tag%02d needle\n", i, i, i)
	}
	var long strings.Builder
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	files["long.md"] = long.String()
	files["concepts/Racine.md"] = "---\nprefLabel: Racine\ndefinition: la racine du graphe\n---\nLa racine.\n"
	for i := 1; i <= 25; i++ {
		files[fmt.Sprintf("concepts/Enfant %02d.md", i)] = fmt.Sprintf("---\nprefLabel: Enfant %02d\nbroader: \"[[Racine]]\"\ndefinition: enfant numéro %d\n---\nL’enfant %d.\n", i, i, i)
	}
	for i := 1; i <= 6; i++ {
		files[fmt.Sprintf("concepts/Petit %02d.md", i)] = fmt.Sprintf("---\nprefLabel: Petit %02d\nbroader: \"[[Enfant 01]]\"\n---\nLe petit %d.\n", i, i)
	}
	return files
}

// Authors of the paging vault's history.
const (
	ana   = "Ana Müller <ana@example.org>"
	bruno = "Bruno <bruno@example.org>"
	agent = "vaultmcp <vaultmcp@localhost>"
)

// pagingHistory is a history whose last commit holds files: the 25 notes
// added one by one by Ana (13) and the agent (12), between Bruno's 12
// edits of "Old Hub.md", which he then renamed to Hub.md; the concepts
// come last, in one commit.
func pagingHistory(files map[string]string) *historyWriter {
	w := newHistoryWriter(histStart)
	done := map[string]bool{"long.md": true, "Hub.md": true}
	w.commit(agent, "start", writeOp("long.md", files["long.md"]))
	hub := files["Hub.md"]
	w.commit(bruno, "add Old Hub", writeOp("Old Hub.md", hub))
	for i := 1; i <= 25; i++ {
		author := ana
		if i%2 == 0 {
			author = agent
		}
		p := fmt.Sprintf("notes/Note %02d.md", i)
		w.commit(author, "add "+p, writeOp(p, files[p]))
		done[p] = true
		if i <= 12 {
			hub += fmt.Sprintf("edit %d\n", i)
			w.commit(bruno, fmt.Sprintf("edit %d of Old Hub", i), writeOp("Old Hub.md", hub))
		}
	}
	w.commit(bruno, "tidy Old Hub", writeOp("Old Hub.md", files["Hub.md"]))
	w.commit(bruno, "rename Old Hub.md -> Hub.md", moveOp("Old Hub.md", "Hub.md", files["Hub.md"]))
	var rest []fileOp
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if !done[p] {
			rest = append(rest, writeOp(p, files[p]))
		}
	}
	w.commit(agent, "add the concepts", rest...)
	return w
}

// withHistory gives the harness's vault the history w (whose last commit
// must hold the vault's files) and serves it as the server does.
func withHistory(t *testing.T, w *historyWriter) func(*tools.Deps) {
	return func(d *tools.Deps) {
		w.write(t, d.Vault.Root(), false)
		repo, err := gitsync.Open(context.Background(), gitsync.Options{Dir: d.Vault.Root(), Locker: d.Vault.Locker()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { repo.Close() })
		d.Vault.SetRecorder(repo)
		d.Git = repo
	}
}

// page is one answer of a paged tool, taken apart.
type page struct {
	items []string
	total int  // -1 when the answer does not say
	next  *int // nil on the last page
	// last is set when the answer says it is the last page; pastEnd is
	// the offset it says lies past the end (-1 when it does not).
	last    bool
	pastEnd int
	text    string
}

var (
	offsetInNotice  = regexp.MustCompile(`offset=(\d+) for the next page`)
	pastEndInNotice = regexp.MustCompile(`offset=(\d+) is past the end`)
	totalInNotice   = regexp.MustCompile(`(?:of|there are) ([\d,]+) `)
)

// noticed reads what the paging notice in text says besides the next
// offset.
func noticed(p page) page {
	p.last = strings.Contains(p.text, "the last page")
	p.pastEnd = -1
	if m := pastEndInNotice.FindStringSubmatch(p.text); m != nil {
		p.pastEnd, _ = strconv.Atoi(m[1])
	}
	return p
}

// textPage reads a text answer: items are its lines, the notice is the
// bracketed last line.
func textPage(text string) page {
	p := page{total: -1, text: text}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			if m := offsetInNotice.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				p.next = &n
			}
			if m := totalInNotice.FindStringSubmatch(line); m != nil {
				p.total, _ = strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			}
			continue
		}
		if line != "" {
			p.items = append(p.items, line)
		}
	}
	return noticed(p)
}

var (
	// A commit of get_recent_changes or get_note_history, or a file of
	// get_diff.
	historyItem  = regexp.MustCompile(`^(?:\d+\. |\[(?:added|modified|deleted|renamed)\] )`)
	historyShown = regexp.MustCompile(`Showing \w+ \d+–\d+ of (\d+)(?:; next page: offset=(\d+))?\.`)
	historyPast  = regexp.MustCompile(`No \w+ at offset (\d+)(?:: there are (\d+) matching| \((\d+) in total\))`)
)

// historyPage reads an answer of a history tool: items are its commits'
// (or files') first lines; its last line says which part of the list it
// shows, or that the offset is past the end, in words of its own.
func historyPage(text string, _ map[string]any) page {
	p := page{total: -1, pastEnd: -1, text: text}
	for _, line := range strings.Split(text, "\n") {
		if historyItem.MatchString(line) {
			p.items = append(p.items, line)
		}
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if m := historyShown.FindStringSubmatch(text); m != nil {
		p.total = atoi(m[1])
		if m[2] != "" {
			next := atoi(m[2])
			p.next = &next
		} else {
			p.last = true
		}
	}
	if m := historyPast.FindStringSubmatch(text); m != nil {
		p.pastEnd, p.total = atoi(m[1]), atoi(m[2]+m[3])
	}
	return p
}

// conceptPage reads expand_context's answer: its items are the context
// notes without their text, which each page cuts to its own budget.
func conceptPage(text string, sc map[string]any) page {
	notes, _ := sc["context_notes"].([]any)
	for _, n := range notes {
		m, _ := n.(map[string]any)
		delete(m, "content")
		delete(m, "content_truncated")
		delete(m, "content_omitted")
	}
	return jsonPage(text, sc, "context_notes", "total")
}

// jsonPage reads a structured answer: items is the list under key (each
// item rendered as JSON), total the number under totalKey.
func jsonPage(text string, sc map[string]any, key, totalKey string) page {
	p := page{total: -1, text: text}
	var list []any
	obj := sc
	if k, sub, ok := strings.Cut(key, "."); ok {
		obj, _ = sc[k].(map[string]any)
		key = sub
	}
	list, _ = obj[key].([]any)
	for _, it := range list {
		raw, _ := json.Marshal(it)
		p.items = append(p.items, string(raw))
	}
	if n, ok := obj[totalKey].(float64); ok {
		p.total = int(n)
	}
	if n, ok := obj["next_offset"].(float64); ok {
		next := int(n)
		p.next = &next
	}
	return noticed(p)
}

// withArgs adds keys to a JSON object of arguments.
func withArgs(base string, extra map[string]any) string {
	m := map[string]any{}
	if err := json.Unmarshal([]byte(base), &m); err != nil {
		panic(err)
	}
	for k, v := range extra {
		m[k] = v
	}
	raw, _ := json.Marshal(m)
	return string(raw)
}

// TestPaging walks every list tool page by page: the pages, joined, are
// the whole list in order, with no item twice; the total never changes;
// the last page has no next offset and says it is the last; an offset
// past the end returns no items, says so, and still reports the total.
func TestPaging(t *testing.T) {
	files := pagingVault()
	w := pagingHistory(files)
	h := newIndexHarness(t, files, withHistory(t, w))
	listed := func(key, total string) func(string, map[string]any) page {
		return func(x string, sc map[string]any) page { return jsonPage(x, sc, key, total) }
	}
	text := func(x string, _ map[string]any) page { return textPage(x) }
	tests := []struct {
		tool, args string
		read       func(text string, sc map[string]any) page
		// limit is the page size (10 unless set), most the largest limit
		// the tool takes (MaxPageLimit unless set), which must fetch the
		// whole list at once.
		limit, most int
	}{
		{tool: "get_backlinks", args: `{"note_name":"Hub"}`, read: listed("backlinks", "backlink_count")},
		{tool: "get_backlinks", args: `{"path":"Hub.md"}`, read: listed("backlinks", "backlink_count")},
		{tool: "get_broken_links", args: `{}`, read: listed("broken_links", "files_with_broken_links")},
		{tool: "find_links", args: `{"path":"Hub.md","direction":"backlinks"}`, read: listed("results", "total")},
		{tool: "find_links", args: `{"path":"Hub.md","direction":"both"}`, read: listed("backlinks.results", "total")},
		{tool: "get_tags", args: `{}`, read: listed("tags", "total")},
		{tool: "list_directory", args: `{"path":"","recursive":true}`, read: text},
		{tool: "search_files", args: `{"pattern":"*.md"}`, read: text},
		{tool: "find_files", args: `{"name":"note"}`, read: text},
		{tool: "grep", args: `{"query":"needle"}`, read: text},
		{tool: "grep", args: `{"query":"e","output":"files"}`, read: text},
		{tool: "grep", args: `{"query":"e","output":"count"}`, read: text},
		{tool: "query_notes", args: `{}`, read: listed("notes", "total")},
		{tool: "query_notes", args: `{"sort":"-modified"}`, read: listed("notes", "total")},
		{tool: "query_notes", args: `{"filter":{"folder":"concepts"},"sort":"-name"}`, read: listed("notes", "total")},
		// Equal scores: the pages must still agree on their order.
		{tool: "search_notes", args: `{"query":"needle"}`, read: listed("results", "total")},
		{tool: "search_notes", args: `{"query":"note enfant"}`, read: listed("results", "total")},
		{tool: "search_concepts", args: `{"query":"enfant"}`, read: listed("results", "total"), most: tools.MaxSearchLimit},
		{tool: "expand_context", args: `{"concept_id":"racine"}`, read: conceptPage, most: tools.MaxExpandLimit},
		{tool: "expand_context", args: `{"concept_id":"racine","include_content":false,"max_depth":1}`, read: conceptPage, most: tools.MaxExpandLimit},
		// get_recent_changes takes at most 20 commits: each list here has
		// fewer.
		{tool: "get_recent_changes", args: `{"author":"ana"}`, read: historyPage, limit: 4, most: 20},
		{tool: "get_recent_changes", args: `{"path":"Old Hub.md"}`, read: historyPage, limit: 4, most: 20},
		{tool: "get_recent_changes", args: `{"author":"BRUNO","files_only":true}`, read: historyPage, limit: 4, most: 20},
		{tool: "get_note_history", args: `{"path":"Hub.md"}`, read: historyPage, limit: 4, most: 500},
		{tool: "get_note_history", args: `{"path":"hub","author":"bruno"}`, read: historyPage, limit: 4, most: 500},
		{tool: "get_diff", args: fmt.Sprintf(`{"from":"HEAD~%d"}`, w.commits-1), read: historyPage, most: 1000},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.args, func(t *testing.T) {
			limit, most := cmp.Or(tt.limit, 10), cmp.Or(tt.most, tools.MaxPageLimit)
			all := tt.read(h.structured(tt.tool, withArgs(tt.args, map[string]any{"limit": most})))
			if all.next != nil || len(all.items) <= 2*limit {
				t.Fatalf("the whole list (%d items, next %v) is too short to page through:\n%s", len(all.items), all.next, all.text)
			}
			if all.total == -1 {
				all.total = len(all.items) // a text answer holding the whole list has no notice
			}
			if d := duplicate(all.items); d != "" {
				t.Errorf("the whole list has %q twice", d)
			}
			var joined []string
			offset := 0
			for pages := 1; ; pages++ {
				p := tt.read(h.structured(tt.tool, withArgs(tt.args, map[string]any{"limit": limit, "offset": offset})))
				if p.total != all.total {
					t.Errorf("page %d: total %d, want %d", pages, p.total, all.total)
				}
				joined = append(joined, p.items...)
				if p.next == nil {
					if len(p.items) == 0 || len(p.items) > limit {
						t.Errorf("last page has %d items", len(p.items))
					}
					if !p.last {
						t.Errorf("last page does not say so:\n%s", p.text)
					}
					t.Logf("%d items (total %d) in %d pages", len(joined), all.total, pages)
					break
				}
				if len(p.items) != limit || *p.next != offset+limit {
					t.Fatalf("page %d: %d items, next offset %d; want %d and %d", pages, len(p.items), *p.next, limit, offset+limit)
				}
				if p.last || !strings.Contains(p.text, fmt.Sprintf("offset=%d", *p.next)) {
					t.Errorf("page %d does not say how to get the next one:\n%s", pages, p.text)
				}
				offset = *p.next
			}
			if !slices.Equal(joined, all.items) {
				t.Errorf("pages joined:\n%q\nwant\n%q", joined, all.items)
			}
			past := len(all.items) + 5
			p := tt.read(h.structured(tt.tool, withArgs(tt.args, map[string]any{"offset": past})))
			if len(p.items) != 0 || p.next != nil || p.total != all.total || p.pastEnd != past {
				t.Errorf("offset past the end: %d items, next %v, total %d:\n%s", len(p.items), p.next, p.total, p.text)
			}
		})
	}
}

// duplicate returns an item that occurs twice in items, or "".
func duplicate(items []string) string {
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it] {
			return it
		}
		seen[it] = true
	}
	return ""
}

// read_file pages by lines.
func TestReadFilePaging(t *testing.T) {
	h := newIndexHarness(t, pagingVault())
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	tests := []struct{ args, want string }{
		{`{"path":"long.md"}`, lines(1, 25)},
		{`{"path":"long.md","limit":10}`, lines(1, 10) + "\n[... truncated: showing lines 1–10 of 25 (71 bytes of 191 bytes); read on with offset=10 ...]"},
		{`{"path":"long.md","offset":10,"limit":10}`, lines(11, 20) + "\n[... truncated: showing lines 11–20 of 25 (80 bytes of 191 bytes); read on with offset=20 ...]"},
		{`{"path":"long.md","offset":20,"limit":10}`, lines(21, 25) + "\n[... lines 21–25 of 25: the end of the file ...]"},
		{`{"path":"long.md","offset":24}`, lines(25, 25) + "\n[... lines 25–25 of 25: the end of the file ...]"},
	}
	for _, tt := range tests {
		if got := h.ok("read_file", tt.args); got != tt.want {
			t.Errorf("read_file %s =\n%q\nwant\n%q", tt.args, got, tt.want)
		}
	}
	// Past the end is an answer, as for every paged tool, not an error.
	for args, want := range map[string]string{
		`{"path":"long.md","offset":25}`:                     "[offset=25 is past the end: long.md has 25 lines; offset=0 reads from the start]",
		`{"path":"long.md","offset":99,"column":3}`:          "[offset=99 is past the end: long.md has 25 lines; offset=0 reads from the start]",
		`{"path":"long.md","offset":3,"column":7}`:           "[column=7 is past the end of line 4, which has 6 bytes]",
		`{"path":"long.md","offset":3,"column":6}`:           "\nline 5\n",
		`{"path":"long.md","offset":23,"column":5}`:          "24\nline 25\n\n[... line 24 from its byte 6 to the end of the file (25 lines) ...]",
		`{"path":"long.md","offset":0,"column":5,"limit":2}`: "1\nline 2\n\n[... truncated: showing lines 1–2 of 25 (line 1 from its byte 6) (9 bytes of 191 bytes); read on with offset=2 ...]",
	} {
		if got := h.ok("read_file", args); !strings.HasPrefix(got, want) {
			t.Errorf("read_file %s =\n%q\nwant it to start with\n%q", args, got, want)
		}
	}
	// A path off only in case, accents or ".md" is read as the one file it
	// names, saying so; a name found elsewhere stays a suggestion.
	for args, want := range map[string]string{
		`{"path":"LONG","limit":1}`:             "(LONG is taken as long.md, the one name that matches it ignoring case, accents and .md.)\n\nline 1\n\n[... truncated",
		`{"path":"NOTES/note 01.md","limit":1}`: "(NOTES/note 01.md is taken as notes/Note 01.md, the one name",
	} {
		if got := h.ok("read_file", args); !strings.HasPrefix(got, want) {
			t.Errorf("read_file %s =\n%q\nwant it to start with\n%q", args, got, want)
		}
	}
	h.fails("read_file", `{"path":"Note 01.md"}`, "File not found: Note 01.md; did you mean notes/Note 01.md?")
	h.fails("read_file", `{"path":"long.md","limit":0}`, "limit")
	h.fails("read_file", `{"path":"long.md","column":-1}`, "column")
}

// A note that is one line of 258 KB is read to its last byte by
// following the notices' offset and column.
func TestReadFileLongLine(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 258<<10; i++ {
		fmt.Fprintf(&b, "word%d é ü 日本 ", i)
	}
	wide := b.String() + "\nlast line\n"
	h := newIndexHarness(t, map[string]string{"wide.md": wide})
	next := regexp.MustCompile(`read on with offset=(\d+)(?: column=(\d+))? \.\.\.\]$`)
	var joined strings.Builder
	args := `{"path":"wide.md"}`
	for pages := 0; ; pages++ {
		got := h.ok("read_file", args)
		body, notice, _ := strings.Cut(got, "\n\n[...")
		if !strings.HasPrefix(got, body) || len(got) > 70<<10 {
			t.Fatalf("page %d: %d bytes", pages, len(got))
		}
		m := next.FindStringSubmatch(notice)
		joined.WriteString(body)
		if m == nil || m[2] == "" {
			joined.WriteString("\n") // the page ended at a line end
		}
		if m == nil {
			if !strings.Contains(notice, "the end of the file") {
				t.Fatalf("page %d ends without a way on: %q", pages, notice)
			}
			break
		}
		if m[2] != "" && !strings.Contains(notice, "line 1 is longer than a page: showing its bytes") {
			t.Errorf("page %d notice: %q", pages, notice)
		}
		args = fmt.Sprintf(`{"path":"wide.md","offset":%s,"column":%s}`, m[1], cmp.Or(m[2], "0"))
		if pages > 10 {
			t.Fatal("no end after 10 pages")
		}
	}
	if joined.String() != wide {
		t.Errorf("pages joined: %d bytes, want %d (the whole note)", joined.Len(), len(wide))
	}
}

// get_diff's default pages stop where its 20 KB budget runs out, before
// the 50 files a page holds: walked by their next offsets, they list
// every file git lists between the two commits, each once, and keep
// their total.
func TestGetDiffPagesWithinBudget(t *testing.T) {
	note := func(i int, words string) string {
		var b strings.Builder
		for l := 1; l <= 100; l++ {
			fmt.Fprintf(&b, "ligne %d de la réunion %d, %s\n", l, i, words)
		}
		return b.String()
	}
	name := func(dir string, i int) string { return fmt.Sprintf("%s/Réunion %02d.md", dir, i) }
	w := newHistoryWriter(histStart)
	files := map[string]string{}
	var ops []fileOp
	for i := 1; i <= 40; i++ {
		ops = append(ops, writeOp(name("a", i), note(i, "texte d’origine")))
		files[name("a", i)] = note(i, "texte d’origine")
	}
	w.commit(ana, "import", ops...)
	ops = nil
	for i := 1; i <= 40; i++ {
		switch {
		case i <= 15:
			files[name("a", i)] = note(i, "texte réécrit")
			ops = append(ops, writeOp(name("a", i), files[name("a", i)]))
		case i <= 23:
			delete(files, name("a", i))
			ops = append(ops, deleteOp(name("a", i)))
		case i <= 31:
			files[name("b", i)] = files[name("a", i)]
			delete(files, name("a", i))
			ops = append(ops, moveOp(name("a", i), name("b", i), files[name("b", i)]))
		}
	}
	for i := 41; i <= 55; i++ {
		files[name("c", i)] = note(i, "texte nouveau")
		ops = append(ops, writeOp(name("c", i), files[name("c", i)]))
	}
	w.commit(bruno, "rewrite, delete, move and add", ops...)
	h := newIndexHarness(t, files, withHistory(t, w))

	// What git lists, in the tool's words.
	var want []string
	kinds := map[byte]string{'A': "added", 'M': "modified", 'D': "deleted", 'R': "renamed"}
	fields := strings.Split(strings.TrimSuffix(gitOut(t, h.root, "diff", "--name-status", "-z", "-M", "HEAD~1", "HEAD"), "\x00"), "\x00")
	for i := 0; i < len(fields); i++ {
		item := "[" + kinds[fields[i][0]] + "] " + fields[i+1]
		if fields[i][0] == 'R' {
			item += " -> " + fields[i+2]
			i++
		}
		want = append(want, item)
		i++
	}
	if len(want) != 46 {
		t.Fatalf("git lists %d files: %q", len(want), want)
	}

	counts := regexp.MustCompile(` \(\+\d+ -\d+\)$`)
	var joined []string
	offset, pages := 0, 1
	for ; ; pages++ {
		p := historyPage(h.structured("get_diff", fmt.Sprintf(`{"from":"HEAD~1","offset":%d}`, offset)))
		if p.total != len(want) || len(p.items) == 0 || len(p.text) > 22<<10 {
			t.Fatalf("page at offset %d: %d items of %d, %d bytes:\n%s", offset, len(p.items), p.total, len(p.text), p.text)
		}
		for _, it := range p.items {
			joined = append(joined, counts.ReplaceAllString(it, ""))
		}
		if p.next == nil {
			if !p.last {
				t.Errorf("last page does not say so:\n%s", p.text)
			}
			break
		}
		if *p.next != offset+len(p.items) {
			t.Fatalf("page at offset %d holds %d files but sends on to %d", offset, len(p.items), *p.next)
		}
		offset = *p.next
	}
	if pages < 3 {
		t.Errorf("%d pages: the budget never cut one", pages)
	}
	t.Logf("%d files in %d pages", len(joined), pages)
	if d := duplicate(joined); d != "" {
		t.Errorf("%q is on two pages", d)
	}
	slices.Sort(joined)
	slices.Sort(want)
	if !slices.Equal(joined, want) {
		t.Errorf("pages joined:\n%q\ngit lists\n%q", joined, want)
	}
	if p := historyPage(h.structured("get_diff", `{"from":"HEAD~1","offset":60}`)); len(p.items) != 0 || p.pastEnd != 60 || p.total != len(want) {
		t.Errorf("offset past the end:\n%s", p.text)
	}
}
