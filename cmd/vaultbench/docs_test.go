package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRewriteBlocks(t *testing.T) {
	const page = "# Performance\n\nprose\n\n<!-- bench:begin index -->\nold index\n<!-- bench:end index -->\n\nmore prose\n\n<!-- bench:begin git -->\n<!-- bench:end git -->\nend\n"
	tests := []struct {
		name    string
		page    string
		blocks  map[string]string
		want    string
		wantErr string
	}{
		{
			name:   "one block replaced, the rest kept",
			page:   page,
			blocks: map[string]string{"index": "new index\n"},
			want:   strings.Replace(page, "old index\n", "new index\n", 1),
		},
		{
			name:   "an empty block filled, a newline added",
			page:   page,
			blocks: map[string]string{"git": "| a |"},
			want:   strings.Replace(page, "<!-- bench:begin git -->\n", "<!-- bench:begin git -->\n| a |\n", 1),
		},
		{
			name:   "two blocks",
			page:   page,
			blocks: map[string]string{"index": "i\n", "git": "g\n"},
			want: strings.Replace(strings.Replace(page, "old index\n", "i\n", 1),
				"<!-- bench:begin git -->\n", "<!-- bench:begin git -->\ng\n", 1),
		},
		{
			name:   "emptied",
			page:   page,
			blocks: map[string]string{"index": ""},
			want:   strings.Replace(page, "old index\n", "", 1),
		},
		{
			name:   "nothing to write",
			page:   page,
			blocks: nil,
			want:   page,
		},
		{
			name:   "a marker quoted inside a line is not a marker",
			page:   "see `<!-- bench:begin x -->`\n<!-- bench:begin x -->\nold\n<!-- bench:end x -->\n",
			blocks: map[string]string{"x": "new\n"},
			want:   "see `<!-- bench:begin x -->`\n<!-- bench:begin x -->\nnew\n<!-- bench:end x -->\n",
		},
		{
			name:    "block missing",
			page:    page,
			blocks:  map[string]string{"scale": "x\n"},
			wantErr: "<!-- bench:begin scale --> is not on the page",
		},
		{
			name:    "end missing",
			page:    "<!-- bench:begin x -->\nold\n",
			blocks:  map[string]string{"x": "new\n"},
			wantErr: "<!-- bench:end x --> is not on the page",
		},
		{
			name:    "end before begin",
			page:    "<!-- bench:end x -->\n<!-- bench:begin x -->\n",
			blocks:  map[string]string{"x": "new\n"},
			wantErr: "<!-- bench:end x --> comes before <!-- bench:begin x -->",
		},
		{
			name:    "twice",
			page:    "<!-- bench:begin x -->\n<!-- bench:end x -->\n<!-- bench:begin x -->\n<!-- bench:end x -->\n",
			blocks:  map[string]string{"x": "new\n"},
			wantErr: "<!-- bench:begin x --> is on the page twice",
		},
		{
			name:    "a marker at the end of the page without its newline",
			page:    "<!-- bench:begin x -->\n<!-- bench:end x -->",
			blocks:  map[string]string{"x": "new\n"},
			wantErr: "<!-- bench:end x --> is not on the page",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rewriteBlocks([]byte(tt.page), tt.blocks)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// A second run over the page it wrote gives the same page: the markers
// survive the rewrite.
func TestRewriteBlocksTwice(t *testing.T) {
	page := []byte("a\n<!-- bench:begin x -->\n<!-- bench:end x -->\nb\n")
	blocks := map[string]string{"x": markdownTable([]figure{{name: "op", got: time.Millisecond, budget: 5 * time.Millisecond}})}
	once, err := rewriteBlocks(page, blocks)
	if err != nil {
		t.Fatal(err)
	}
	twice, err := rewriteBlocks(once, blocks)
	if err != nil {
		t.Fatal(err)
	}
	if string(once) != string(twice) {
		t.Errorf("second rewrite changed the page:\n%s\n---\n%s", once, twice)
	}
}

func TestMarkdownTable(t *testing.T) {
	figs := []figure{
		{name: "write_file → committed", got: 2490 * time.Microsecond, budget: 5 * time.Millisecond, baseName: "git add && git commit", base: 49 * time.Millisecond},
		{name: "  server CPU per write_file", text: "2.44 ms"},
		{name: "grep literal", got: 10 * time.Millisecond, baseName: "rg", base: 20 * time.Millisecond, minRatio: 3},
		{name: "peak memory", gotBytes: 130 << 20, budgetBytes: 120 << 20},
		{name: "a | b", text: "x|y", budgetText: "= 0", note: "(note)"},
	}
	want := tableHeader +
		"| write_file → committed | ≤ 5.00 ms | 2.49 ms | git add && git commit: 49.00 ms (19.7×) |\n" +
		"| server CPU per write_file |  | 2.44 ms |  |\n" +
		"| grep literal | ≥ 3x rg | 10.00 ms (**over budget**) | rg: 20.00 ms (2.0×) |\n" +
		"| peak memory | ≤ 120 MB | 130.0 MB (**over budget**) |  |\n" +
		"| a \\| b | = 0 | x\\|y (note) |  |\n"
	if got := markdownTable(figs); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriteDocs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "performance.md")
	page := "intro\n<!-- bench:begin machine -->\nold\n<!-- bench:end machine -->\n<!-- bench:begin git -->\n<!-- bench:end git -->\n"
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkDocs(path, []string{"machine", "git"}); err != nil {
		t.Fatal(err)
	}
	if err := checkDocs(path, []string{"machine", "scale"}); err == nil || !strings.Contains(err.Error(), "bench:begin scale") {
		t.Fatalf("checkDocs of a page without the scale block: %v", err)
	}
	if err := writeDocs(path, map[string]string{"machine": "new\n", "git": "g\n"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "intro\n<!-- bench:begin machine -->\nnew\n<!-- bench:end machine -->\n<!-- bench:begin git -->\ng\n<!-- bench:end git -->\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestProvenance(t *testing.T) {
	now := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	e := &env{notes: 10000, large: 100000}
	if got, want := provenance("machine: 2 cores", e, nil, now),
		"machine: 2 cores, 2026-11-29. Generated varied vaults of 10000 notes (100000 for the scale section); every section.\n"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	e.plain = true
	if got, want := provenance("m", e, []string{"index", "git"}, now),
		"m, 2026-11-29. Generated plain vaults of 10000 notes (100000 for the scale section); the sections index, git (the others are from an earlier run).\n"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
