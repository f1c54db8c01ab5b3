package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"vaultmcp/internal/atomicfile"
)

// A page written by --write-docs holds one block per section between two
// marker lines; everything outside the blocks is left as it is, so the
// prose that explains the figures stays hand-written:
//
//	<!-- bench:begin index -->
//	| operation | budget | vaultmcp | same work, same run |
//	…
//	<!-- bench:end index -->
//
// The block named machineBlock gets the line saying where the figures come
// from. A run rewrites only the blocks of the sections it ran.
const (
	beginMarker  = "<!-- bench:begin %s -->"
	endMarker    = "<!-- bench:end %s -->"
	machineBlock = "machine"
)

// tableHeader opens every section's table on the page.
const tableHeader = "| operation | budget | vaultmcp | same work, same run |\n|---|---|---|---|\n"

// markdownTable renders a section's figures as the page's table, one row a
// figure, with the same cells the terminal table prints.
func markdownTable(figs []figure) string {
	var b strings.Builder
	b.WriteString(tableHeader)
	for _, f := range figs {
		got, budget, verdict := f.format()
		if f.note != "" {
			got += " " + f.note
		}
		if verdict != "" {
			got += " (**over budget**)"
		}
		base := ""
		if f.baseName != "" {
			base = f.baseName + ": " + fmtDuration(f.base)
			if f.got > 0 && f.base > 0 {
				base += fmt.Sprintf(" (%.1f×)", float64(f.base)/float64(f.got))
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n",
			cell(strings.TrimSpace(f.name)), cell(budget), cell(got), cell(base))
	}
	return b.String()
}

// cell escapes what would end a Markdown table cell early.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

// rewriteBlocks returns page with the text between the markers of each
// named block replaced by blocks[name]. Every named block must be on the
// page exactly once, begin before end, each marker on a line of its own:
// a page that lost a marker is an error naming it, never a page half
// rewritten.
func rewriteBlocks(page []byte, blocks map[string]string) ([]byte, error) {
	out := page
	for name, text := range blocks {
		begin := []byte(fmt.Sprintf(beginMarker, name))
		end := []byte(fmt.Sprintf(endMarker, name))
		i, err := markerLine(out, begin)
		if err != nil {
			return nil, err
		}
		j, err := markerLine(out, end)
		if err != nil {
			return nil, err
		}
		if j < i {
			return nil, fmt.Errorf("%s comes before %s", end, begin)
		}
		from := i + len(begin) + 1 // the line after the begin marker
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		next := make([]byte, 0, len(out)+len(text))
		next = append(next, out[:from]...)
		next = append(next, text...)
		next = append(next, out[j:]...)
		out = next
	}
	return out, nil
}

// markerLine finds marker on a line of its own in page, once, and returns
// its offset.
func markerLine(page, marker []byte) (int, error) {
	at := -1
	for off := 0; off < len(page); {
		k := bytes.Index(page[off:], marker)
		if k < 0 {
			break
		}
		k += off
		off = k + len(marker)
		startsLine := k == 0 || page[k-1] == '\n'
		endsLine := off < len(page) && page[off] == '\n'
		if !startsLine || !endsLine {
			continue
		}
		if at >= 0 {
			return 0, fmt.Errorf("%s is on the page twice", marker)
		}
		at = k
	}
	if at < 0 {
		return 0, fmt.Errorf("%s is not on the page (on a line of its own, the line ended)", marker)
	}
	return at, nil
}

// checkDocs says whether the page at path has the blocks named.
func checkDocs(path string, names []string) error {
	page, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the page to write the figures into: %w", err)
	}
	for _, name := range names {
		if _, err := rewriteBlocks(page, map[string]string{name: ""}); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// writeDocs rewrites the blocks of the page at path.
func writeDocs(path string, blocks map[string]string) error {
	page, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the page to write the figures into: %w", err)
	}
	out, err := rewriteBlocks(page, blocks)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, out, 0o644); err != nil {
		return fmt.Errorf("write the figures into %s: %w", path, err)
	}
	return nil
}
