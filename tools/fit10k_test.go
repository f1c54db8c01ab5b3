package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"vaultmcp/gitsync"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/internal/tokens"
	"vaultmcp/internal/vaultgen"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// fitVault is what the 10,000-note vault of TestDefaultAnswersFit holds
// besides the generated notes, by the names its calls use.
type fitVault struct {
	// tracked is a note edited every tenth commit and moved every
	// hundredth (its name now); linkCommit links 3,000 notes to Hub.md,
	// and retitleCommit changes that link in 1,500 of them.
	tracked, linkCommit, retitleCommit string
	// held are the notes deleted from disk, whose deletion the sync holds
	// back; deepFolder is a folder with folder rules (CLAUDE.md) above it.
	held       []string
	deepFolder string
}

// Authors of the fit vault's history.
var fitAuthors = []string{"Ana Müller <ana@example.org>", "Bruno Lefèvre <bruno@example.org>", "vaultmcp <vaultmcp@localhost>"}

// buildFitVault turns the generated vault in dir into one with a history
// of about 300 commits written in git: edits of random notes by three
// authors, deletions, one note edited every tenth commit and moved every
// hundredth, then one commit linking 3,000 notes to a hub, one changing
// that link in 1,500 of them, one adding a concept graph of 801 concepts
// (one with 600 narrower concepts, 40 of which have five of their own),
// one adding a 1 MB note, and a few small ones. Then 250 notes are
// deleted from disk, a mass deletion for the sync to hold back.
func buildFitVault(t *testing.T, dir string, gen *vaultgen.Vault) fitVault {
	var fv fitVault
	w := newHistoryWriter(time.Date(2025, 3, 1, 9, 0, 0, 0, time.FixedZone("", 3600)))
	content := map[string]string{} // the latest text of each note the history changed
	read := func(p string) string {
		if c, ok := content[p]; ok {
			return c
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	var first []fileOp
	err := filepath.WalkDir(dir, func(abs string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, abs)
		data, err := os.ReadFile(abs)
		first = append(first, diskOp(filepath.ToSlash(rel), string(data)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	w.commit(fitAuthors[0], "generated vault", first...)

	// Random edits stay off the notes linked to the hub (the revert of
	// that commit must meet no later change) and off the held-back ones.
	r := rand.New(rand.NewPCG(3, 5))
	pool := append([]string(nil), gen.Paths[3000:9000]...)
	fv.tracked = pool[1242]
	pool = append(pool[:1242], pool[1243:]...)
	for i := 1; i < 298; i++ {
		author := fitAuthors[i%len(fitAuthors)]
		switch {
		case i%100 == 50:
			to := fmt.Sprintf("Réunions/Suivi %d/Suivi du projet Été %d.md", i/100, i/100)
			if i/100 == 1 {
				to = norm.NFD.String(to) // as macOS names it
			}
			c := strings.Replace(read(fv.tracked), "\n", fmt.Sprintf("\nDéplacé au commit %d.\n", i), 1)
			w.commit(author, "rename "+fv.tracked+" -> "+to, moveOp(fv.tracked, to, c))
			delete(content, fv.tracked)
			fv.tracked, content[to] = to, c
		case i%10 == 0:
			c := read(fv.tracked) + fmt.Sprintf("- étape %d du suivi, revue avec l’équipe\n", i)
			content[fv.tracked] = c
			w.commit(author, "edit "+fv.tracked, writeOp(fv.tracked, c))
		case i%97 == 0:
			k := r.IntN(len(pool))
			p := pool[k]
			pool = append(pool[:k], pool[k+1:]...)
			w.commit(author, "delete "+p, deleteOp(p))
		default:
			p := pool[r.IntN(len(pool))]
			c := read(p) + fmt.Sprintf("- ligne ajoutée au commit %d : réunion d’équipe, 会議 %d\n", i, i)
			content[p] = c
			w.commit(author, "edit "+p, writeOp(p, c))
		}
	}

	hub := []fileOp{writeOp("Hub.md", "# Hub\n\nLe carrefour du coffre.\n")}
	for _, p := range gen.Paths[:3000] {
		hub = append(hub, writeOp(p, read(p)+"Back to [[Hub]], see [[Hub#Top|the hub]].\n"))
	}
	w.commit(fitAuthors[2], "Link 3,000 notes to the hub", hub...)
	var retitle []fileOp
	for _, op := range hub[1:1501] {
		c := strings.Replace(op.content, "the hub]]", "le carrefour]]", 1)
		content[op.path] = c
		retitle = append(retitle, writeOp(op.path, c))
	}
	w.commit(fitAuthors[1], "Retitle the hub link in 1,500 notes", retitle...)
	w.commit(fitAuthors[0], "Add the concept graph", conceptGraph()...)
	w.commit(fitAuthors[1], "Add a large note and a large canvas",
		writeOp("big.md", strings.Repeat("A long line of a very large note, with [[Hub]] in it.\n", 20000)),
		writeOp("big.canvas", bigCanvas(gen.Paths[:1000])))

	// A folder three deep, with folder rules on the way to it.
	for _, p := range gen.Paths {
		if strings.Count(p, "/") >= 3 {
			fv.deepFolder = path.Dir(p)
			break
		}
	}
	parts := strings.Split(fv.deepFolder, "/")
	w.commit(fitAuthors[2], "Add scratch notes and folder rules",
		writeOp("scratch.md", "one two\n"), writeOp("to-rename.md", "r\n"), writeOp("to-delete.md", "d\n"),
		writeOp(parts[0]+"/CLAUDE.md", "# Règles du dossier\n\n"+strings.Repeat("- Écrire en français, lier chaque note à son projet.\n", 40)),
		writeOp(path.Join(parts[0], parts[1], "CLAUDE.md"), "# Sous-dossier\n\n- Une note par réunion.\n"))
	for i, p := range []string{gen.Paths[9500], gen.Paths[9501]} {
		w.commit(fitAuthors[i], "edit "+p, writeOp(p, read(p)+"- une dernière retouche\n"))
	}

	start := time.Now()
	w.write(t, dir, true)
	t.Logf("%d commits written in %v", w.commits, time.Since(start))
	fv.linkCommit = gitOut(t, dir, "rev-parse", "--short", "HEAD~6")
	fv.retitleCommit = gitOut(t, dir, "rev-parse", "--short", "HEAD~5")
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("the worktree is not the last commit's:\n%.2000s", st)
	}

	fv.held = gen.Paths[9000:9250]
	for _, p := range fv.held {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
	}
	return fv
}

// conceptGraph is 801 concept notes: "Apprentissage automatique" with
// 600 narrower concepts (each related to the next), the first 40 of which
// have five narrower concepts each; one name in eight decomposed (NFD).
func conceptGraph() []fileOp {
	prose := func(label string, n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n", label)
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "%s s’appuie sur les données d’entraînement ; voir l’étape %d, la régression et la forêt aléatoire. ", label, i)
			if i%5 == 4 {
				b.WriteString("\n\n")
			}
		}
		return b.String() + "\n"
	}
	name := func(s string, k int) string {
		if k%8 == 3 {
			return norm.NFD.String(s)
		}
		return s
	}
	ops := []fileOp{writeOp("Concepts/Apprentissage automatique.md",
		"---\nprefLabel: Apprentissage automatique\naltLabel: [Machine learning, ML]\ndefinition: Méthodes qui apprennent à partir des données\n---\n"+
			prose("Apprentissage automatique", 4000))}
	for k := 1; k <= 600; k++ {
		label := fmt.Sprintf("Méthode %03d", k)
		fm := fmt.Sprintf("---\nprefLabel: %s d’apprentissage\nbroader: \"[[Apprentissage automatique]]\"\nrelated: \"[[Méthode %03d]]\"\ndefinition: méthode numéro %d, entraînée sur des données étiquetées\n---\n",
			label, k%600+1, k)
		ops = append(ops, writeOp(name("Concepts/Méthodes/"+label+".md", k), fm+prose(label, 1500)))
		if k > 40 {
			continue
		}
		for j := 1; j <= 5; j++ {
			v := fmt.Sprintf("Variante %03d-%d", k, j)
			fm := fmt.Sprintf("---\nprefLabel: %s\nbroader: \"[[%s]]\"\ndefinition: une variante de la méthode %d\n---\n", v, label, k)
			ops = append(ops, writeOp(name("Concepts/Variantes/"+v+".md", j), fm+prose(v, 800)))
		}
	}
	return ops
}

// TestDefaultAnswersFit calls every tool the server offers with the
// arguments an agent wanting everything would give, on the generated
// 10,000-note varied vault (six languages, attachments, decomposed
// names) with a history of about 300 commits, a concept graph, a note
// linked from 3,000 others, a 1 MB note and a held-back mass deletion,
// and checks that no answer passes the result ceiling or the page target
// of 20,000 estimated tokens (Claude Code cuts at 25,000). A tool without
// a case here fails the test.
func TestDefaultAnswersFit(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 10,000-note vault with its history")
	}
	began := time.Now()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gen, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10000, Seed: 1, Varied: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated in %v", time.Since(began))
	fv := buildFitVault(t, dir, gen)

	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	repo, err := gitsync.Open(ctx, gitsync.Options{Dir: dir, Locker: v.Locker(), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	v.SetRecorder(repo)
	start := time.Now()
	if err := repo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	held := repo.Status().HeldDeletion
	if held == nil || held.Files != len(fv.held) {
		t.Fatalf("held deletion %+v, want %d files", held, len(fv.held))
	}
	t.Logf("synced in %v", time.Since(start))
	ix := index.New(v, logger)
	v.Observe(ix.Changed)
	start = time.Now()
	if err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed in %v", time.Since(start))
	d := tools.Deps{Vault: v, Index: ix, Git: repo, Logger: logger}
	s, err := mcpserver.New(d, "test", mcpserver.WithOutputValidation())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: dir, v: v, s: s}
	h.rpc("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}`)

	arg := func(kv ...any) string {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		raw, _ := json.Marshal(m)
		return string(raw)
	}
	note, nfd := gen.Paths[0], ""
	for _, p := range gen.Paths {
		if norm.NFC.String(p) != p {
			nfd = p // read by its composed name, as clients send it
			break
		}
	}
	// The arguments a client would give when it wants "everything", in
	// the order they run: the held deletion first, and the reverts of the
	// large commits last, as they change what the others see.
	calls := []struct{ tool, args string }{
		{"get_vault_info", `{}`},
		{"confirm_mass_deletion", arg("files", len(fv.held))},
		{"read_file", `{"path":"big.md"}`},
		{"read_file", arg("path", note)},
		{"read_file", arg("path", norm.NFC.String(nfd))},
		{"read_file", arg("path", gen.Attachments[0])},
		{"read_file", arg("path", fv.tracked, "version", "HEAD~200")},
		{"list_directory", `{"path":""}`},
		{"list_directory", `{"path":"","recursive":true}`},
		{"search_files", `{"pattern":"*"}`},
		{"search_files", `{"pattern":"**/*.md"}`},
		{"grep", `{"query":"note"}`},
		{"grep", `{"query":"e","context_lines":5}`},
		{"grep", `{"query":"e","output":"count"}`},
		{"grep", `{"query":"réunion","output":"files"}`},
		{"find_files", `{}`},
		{"get_backlinks", `{"note_name":"Hub"}`},
		{"get_backlinks", `{"path":"Hub.md"}`},
		{"get_broken_links", `{}`},
		{"find_links", `{"path":"Hub.md"}`},
		{"find_links", `{"path":"big.md","direction":"outlinks"}`},
		{"read_canvas", `{"path":"big.canvas"}`},
		{"edit_canvas", `{"path":"big.canvas","add_nodes":[{"type":"text","text":"x"}],"remove_nodes":["n0000"]}`},
		{"get_tags", `{}`},
		{"get_tags", `{"include_parents":true}`},
		{"query_notes", `{}`},
		{"query_notes", `{"sort":"-modified"}`},
		{"query_base", `{"base":"views:\n  - type: table\n    order: [file.name, file.tags, file.links]\n"}`},
		{"search_notes", `{"query":"réunion projet"}`},
		{"search_notes", `{"query":"réun*"}`},
		{"get_properties", arg("path", gen.Paths[20])},
		{"set_properties", arg("path", gen.Paths[9600], "properties", map[string]any{"status": "revu", "tags": []string{"projet", "café"}})},
		{"patch_note", arg("path", gen.Paths[9601], "target_type", "frontmatter", "target", "created", "operation", "replace", "content", "2026-01-01")},
		{"get_claude_context", arg("path", fv.deepFolder)},
		{"get_obsidian_guide", `{"topic":"all"}`},
		{"get_obsidian_guide", `{"topic":"create-note"}`},
		{"get_daily_note", `{}`},
		{"create_daily_note", `{}`},
		{"get_concept", `{"concept_id":"Apprentissage automatique"}`},
		{"expand_context", `{"concept_id":"Apprentissage automatique"}`},
		{"expand_context", `{"concept_id":"Apprentissage automatique","max_depth":3,"relation_types":["broader","narrower","related","prerequisite"]}`},
		{"expand_context", `{"concept_id":"Méthode 001 d’apprentissage"}`},
		{"search_concepts", `{"query":"méthode"}`},
		{"search_concepts", `{"query":"données"}`},
		{"get_concept_path", `{"from_concept":"Variante 001-1","to_concept":"Variante 040-5"}`},
		{"get_statistics", `{}`},
		{"get_recent_changes", `{}`},
		{"get_recent_changes", `{"files_only":true}`},
		{"get_recent_changes", `{"path":"Projects"}`},
		{"get_recent_changes", `{"author":"ana"}`},
		{"get_note_history", arg("path", fv.tracked)},
		{"get_diff", `{"from":"HEAD~8"}`},
		{"get_diff", arg("from", "HEAD~300", "path", fv.tracked)},
		{"write_file", `{"path":"new.md","content":"x"}`},
		{"edit_file", `{"path":"scratch.md","old_text":"one","new_text":"1"}`},
		{"rename_file", `{"old_path":"to-rename.md","new_path":"renamed.md"}`},
		{"delete_file", `{"path":"to-delete.md"}`},
		{"create_directory", `{"path":"made"}`},
		{"revert_change", arg("commit", fv.linkCommit)},
		{"revert_change", arg("commit", fv.retitleCommit)},
	}
	// These must fail, with an answer that fits too: 1,500 of the notes
	// the commit changed were changed again since.
	mustFail := map[string]bool{"revert_change " + arg("commit", fv.linkCommit): true}
	// What shows the vault made these answers as large as they get.
	wants := map[string]string{
		"get_vault_info {}":                                              "Mass deletion held back",
		"get_backlinks " + `{"note_name":"Hub"}`:                         `"backlink_count":3001`,
		"read_canvas " + `{"path":"big.canvas"}`:                         "call again with offset=",
		"get_concept " + `{"concept_id":"Apprentissage automatique"}`:    `"narrower":600`,
		"expand_context " + `{"concept_id":"Apprentissage automatique"}`: `"total":800`,
		"search_concepts " + `{"query":"méthode"}`:                       `"total":801`,
		"get_recent_changes {}":                                          "answer budget of 20.0 KB reached",
		"get_recent_changes " + `{"files_only":true}`:                    "more file(s) not shown",
		"get_diff " + `{"from":"HEAD~8"}`:                                "next page: offset=",
		"get_note_history " + arg("path", fv.tracked):                    "· renamed ",
		"revert_change " + arg("commit", fv.linkCommit):                  "more conflicting file(s) not shown (1,500 in all)",
		"revert_change " + arg("commit", fv.retitleCommit):               "more file(s) reverted (1,500 in all)",
	}
	ceiling := d.ResultLimit()
	const target = tools.DefaultPageTokens + 1000 // the page, plus its other fields and notice
	offered := map[string]bool{}
	resp := h.rpc("tools/list", `{}`)
	list, _ := resp["result"].(map[string]any)["tools"].([]any)
	for _, x := range list {
		offered[x.(map[string]any)["name"].(string)] = true
	}
	measured := map[string]bool{}
	for _, c := range calls {
		if !offered[c.tool] {
			t.Errorf("%s: no such tool offered", c.tool)
			continue
		}
		measured[c.tool] = true
		start := time.Now()
		text, size, toks, failed := answerSize(t, h, c.tool, c.args)
		if failed != mustFail[c.tool+" "+c.args] {
			t.Errorf("%s %s: failed %v, want %v", c.tool, c.args, failed, !failed)
		}
		if w := wants[c.tool+" "+c.args]; !strings.Contains(text, w) {
			t.Errorf("%s %s: the answer lacks %q, so the vault does not test what it should:\n%s", c.tool, c.args, w, text[max(0, len(text)-1000):])
		}
		delete(wants, c.tool+" "+c.args)
		t.Logf("%-18s %-60.60s %7d bytes %6d tokens %v", c.tool, c.args, size, toks, time.Since(start).Round(time.Microsecond))
		if size > ceiling || toks > target {
			t.Errorf("%s %s: %d bytes, %d estimated tokens: over the %d-token page target or the %d-byte ceiling", c.tool, c.args, size, toks, target, ceiling)
		}
	}
	for k := range wants {
		t.Errorf("%s: no such call", k)
	}
	for name := range offered {
		if !measured[name] {
			t.Errorf("%s: no call here measures its answer; add the arguments an agent wanting everything would give", name)
		}
	}
	t.Logf("%d calls of %d tools; %v in all", len(calls), len(offered), time.Since(began).Round(time.Millisecond))
}

// answerSize is an answer's size as the ceiling measures it, the larger
// of its text and its structured content, and the larger one's estimated
// tokens (package internal/tokens); failed says it is an error.
func answerSize(t *testing.T, h *harness, tool, args string) (text string, size, toks int, failed bool) {
	t.Helper()
	resp := h.rpc("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
	res, _ := resp["result"].(map[string]any)
	if res == nil {
		t.Fatalf("%s %s: %v", tool, args, resp)
	}
	failed = res["isError"] == true
	for _, c := range res["content"].([]any) {
		s, _ := c.(map[string]any)["text"].(string)
		text += s
	}
	if failed {
		t.Logf("%s %s failed: %.300s", tool, args, text)
	}
	var structured []byte
	if sc, ok := res["structuredContent"]; ok {
		structured, _ = json.Marshal(sc)
	}
	return text, max(len(text), len(structured)), max(tokens.Estimate(text), tokens.Estimate(structured)), failed
}

// bigCanvas is a board of a file card and a long text card for each
// note, every text card joined to its file card.
func bigCanvas(notes []string) string {
	var nodes, edges []string
	for i, p := range notes {
		nodes = append(nodes,
			fmt.Sprintf(`{"id":"n%04d","type":"file","file":%q,"x":%d,"y":0,"width":400,"height":400}`, i, p, i*500),
			fmt.Sprintf(`{"id":"t%04d","type":"text","text":%q,"x":%d,"y":500,"width":250,"height":60}`, i, strings.Repeat("Une carte à propos de [[Hub]]. ", 10), i*500))
		edges = append(edges, fmt.Sprintf(`{"id":"e%04d","fromNode":"t%04d","toNode":"n%04d"}`, i, i, i))
	}
	return "{\n\t\"nodes\":[\n\t\t" + strings.Join(nodes, ",\n\t\t") + "\n\t],\n\t\"edges\":[\n\t\t" + strings.Join(edges, ",\n\t\t") + "\n\t]\n}\n"
}
