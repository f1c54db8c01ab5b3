package tools

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"vaultmcp/internal/tokens"
)

// splitLines splits data after each '\n', as read_file counts lines.
func splitLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return append(out, data)
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

func TestReadLines(t *testing.T) {
	limit := func(n int) *int { return &n }
	tests := []struct {
		name     string
		data     string
		lr       LineRange
		maxBytes int
		text     string
		lines    int
		total    int
		cut      bool
	}{
		{"whole", "a\nb\n", LineRange{}, 100, "a\nb\n", 2, 2, false},
		{"no final newline", "a\nb", LineRange{}, 100, "a\nb", 2, 2, false},
		{"empty", "", LineRange{}, 100, "", 0, 0, false},
		{"limit", "a\nb\nc\n", LineRange{Limit: limit(2)}, 100, "a\nb\n", 2, 3, false},
		{"offset", "a\nb\nc\n", LineRange{Offset: 1}, 100, "b\nc\n", 2, 3, false},
		{"bytes end the page at a line end", "aaaa\nbbbb\ncccc\n", LineRange{}, 12, "aaaa\nbbbb\n", 2, 3, false},
		{"a line longer than the page", "aaaaaaaaaa\nb\n", LineRange{}, 4, "aaaa", 1, 2, true},
		{"a long line after a full half page starts the next page", "aaaa\nbbbbbbbbbb\n", LineRange{}, 8, "aaaa\n", 1, 2, false},
		{"a long line after little is cut into the page", "a\nbbbbbbbbbb\n", LineRange{}, 6, "a\nbbbb", 2, 2, true},
		{"column reads on in a cut line", "abcdefghij\nb\n", LineRange{Column: 4}, 4, "efgh", 1, 2, true},
		{"column to the end of the line", "abcdefghij\nb\n", LineRange{Column: 8}, 100, "ij\nb\n", 2, 2, false},
		{"column at the line end", "abcd\nb\n", LineRange{Column: 4}, 100, "\nb\n", 2, 2, false},
		{"column of a later line", "x\nabcd\nb\n", LineRange{Offset: 1, Column: 2}, 100, "cd\nb\n", 2, 3, false},
		{"column inside a rune moves on", "éa\n", LineRange{Column: 1}, 100, "a\n", 1, 1, false},
		{"a cut inside a rune", "aé\nb\n", LineRange{}, 2, "a", 1, 2, true},
		{"CRLF kept", "a\r\nb\r\n", LineRange{Limit: limit(1)}, 100, "a\r\n", 1, 2, false},
	}
	for _, tt := range tests {
		pg, err := readLines(strings.NewReader(tt.data), int64(len(tt.data)), tt.lr, tt.maxBytes, unlimited)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(pg.Text) != tt.text || pg.Lines != tt.lines || pg.TotalLines != tt.total || pg.CutLine != tt.cut {
			t.Errorf("%s: text %q lines %d of %d cut %v; want %q %d of %d cut %v",
				tt.name, pg.Text, pg.Lines, pg.TotalLines, pg.CutLine, tt.text, tt.lines, tt.total, tt.cut)
		}
	}
	for _, lr := range []LineRange{{Offset: 1}, {Offset: 5, Column: 3}, {Column: 3}} {
		if pg, err := readLines(strings.NewReader("ab\n"), 3, lr, 100, unlimited); err != nil || !pg.PastEnd || len(pg.Text) != 0 || pg.TotalLines != 1 {
			t.Errorf("%+v past the end: %+v, %v", lr, pg, err)
		}
	}
	if pg, _ := readLines(strings.NewReader("PK\x00\x01"), 4, LineRange{}, 100, unlimited); !pg.Binary {
		t.Error("NUL byte: not binary")
	}
	if pg, _ := readLines(strings.NewReader("caf\xe9\n"), 5, LineRange{}, 100, unlimited); !pg.Binary {
		t.Error("Latin-1: not binary")
	}
}

// TestReadLinesCutsALongLastLine: a line too long for what is left of a
// page that holds little is cut into it; the notice and Next read on
// inside it, and its length is counted whole, past the reader's buffer.
func TestReadLinesCutsALongLastLine(t *testing.T) {
	long := strings.Repeat("b", 100_000)
	data := "a\n" + long + "\nend\n"
	pg, err := readLines(strings.NewReader(data), int64(len(data)), LineRange{}, 1000, unlimited)
	if err != nil {
		t.Fatal(err)
	}
	if !pg.CutLine || pg.Lines != 2 || pg.LastStart != 2 || pg.LastLen != 100_000 || len(pg.Text) != 1000 || pg.TotalLines != 3 {
		t.Fatalf("page: cut %v, %d lines of %d, last from %d, %d long, %d bytes", pg.CutLine, pg.Lines, pg.TotalLines, pg.LastStart, pg.LastLen, len(pg.Text))
	}
	r := ReadResult{Path: "n.md", Page: pg}
	if offset, column, more := r.Next(); offset != 1 || column != 998 || !more {
		t.Errorf("Next = %d, %d, %v", offset, column, more)
	}
	if n := r.Notice(); !strings.Contains(n, "showing lines 1–2 of 3, line 2 in part (its bytes 1–998 of 100,000); read on with offset=1 column=998") {
		t.Errorf("notice: %s", n)
	}
	next, err := readLines(strings.NewReader(data), int64(len(data)), LineRange{Offset: 1, Column: 998}, 1000, unlimited)
	if err != nil || string(next.Text) != long[998:1998] {
		t.Errorf("the next page: %.20q…, %v", next.Text, err)
	}
}

// unlimited is a token budget no test text reaches.
const unlimited = 1 << 30

// TestReadLinesTokens: a page also ends where its estimated tokens would
// pass the budget, at a line end, or inside a line too long for a page
// of its own, on a character boundary.
func TestReadLinesTokens(t *testing.T) {
	greek := strings.Repeat("Σημείωση ", 20) + "\n"
	two := 2 * tokens.Estimate(greek)
	tests := []struct {
		name      string
		data      string
		maxTokens int
		text      string
		lines     int
		cut       bool
	}{
		{"under the budget", "one\ntwo\n", 100, "one\ntwo\n", 2, false},
		{"the budget ends the page at a line end", greek + greek + "x\n", two + 1, greek + greek, 2, false},
		{"a line over the budget is cut on a character", greek, 30, "Σημείωση Σημείωση Ση", 1, true},
		{"English fits more than Greek", strings.Repeat("word ", 100) + "\n", 200, strings.Repeat("word ", 100) + "\n", 1, false},
	}
	for _, tt := range tests {
		pg, err := readLines(strings.NewReader(tt.data), int64(len(tt.data)), LineRange{}, 1<<20, tt.maxTokens)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if string(pg.Text) != tt.text || pg.Lines != tt.lines || pg.CutLine != tt.cut {
			t.Errorf("%s: text %q lines %d cut %v; want %q %d cut %v", tt.name, pg.Text, pg.Lines, pg.CutLine, tt.text, tt.lines, tt.cut)
		}
		if got := tokens.Estimate(pg.Text); got > tt.maxTokens {
			t.Errorf("%s: the page is %d estimated tokens, over %d", tt.name, got, tt.maxTokens)
		}
	}
}

// FuzzReadLines pages through any text as an agent would, following
// each page's way on (offset, or offset and column inside a cut line):
// every page is within the byte limit, the token budget and the line
// limit, has the file's
// true line count, holds the file's bytes from where it starts, and the
// pages joined are the file from the first offset: every byte is reached.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), 0, 0, 4, 1000)
	f.Add([]byte("one line without end"), 0, 2, 5, 1000)
	f.Add([]byte("é\r\nü\n\n\nlast"), 1, 1, 3, 1000)
	f.Add(bytes.Repeat([]byte("x"), 500), 0, 0, 100, 1000)
	f.Add([]byte("short\n"+strings.Repeat("é", 300)+"\nend"), 0, 0, 7, 1000)
	f.Add([]byte("Σημείωση 日記\n  spaces   and words\n"), 0, 0, 150, 5)
	f.Fuzz(func(t *testing.T, data []byte, offset, limit, maxBytes, maxTokens int) {
		if len(data) > 4096 || bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return // each page reads the whole file: keep runs quick
		}
		// Two tokens hold any one character: every page moves on.
		offset, maxBytes, maxTokens = abs(offset)%8, abs(maxBytes)%200+utf8.UTFMax, abs(maxTokens)%100+2
		var lim *int
		if limit = abs(limit) % 5; limit > 0 {
			lim = &limit
		}
		lines := splitLines(data)
		lr := LineRange{Offset: offset, Limit: lim}
		var joined []byte
		for pages := 0; ; pages++ {
			pg, err := readLines(bytes.NewReader(data), int64(len(data)), lr, maxBytes, maxTokens)
			if err != nil || pg.Binary {
				t.Fatalf("page at %+v: %v, binary %v", lr, err, pg.Binary)
			}
			if pg.PastEnd {
				if lr.Offset < len(lines) || len(pg.Text) > 0 {
					t.Fatalf("page at %+v of %d lines: past the end", lr, len(lines))
				}
				break
			}
			if pg.TotalLines != len(lines) || len(pg.Text) > maxBytes || (lim != nil && pg.Lines > *lim) {
				t.Fatalf("page at %+v: %d lines of %d, %d bytes (max %d)", lr, pg.Lines, pg.TotalLines, len(pg.Text), maxBytes)
			}
			if n := tokens.Estimate(pg.Text); n > maxTokens {
				t.Fatalf("page at %+v: %d estimated tokens (max %d)", lr, n, maxTokens)
			}
			rest := bytes.Join(lines[min(lr.Offset, len(lines)):], nil)[lr.Column:]
			if !bytes.HasPrefix(rest, pg.Text) {
				t.Fatalf("page at %+v = %q, want the start of %q", lr, pg.Text, rest)
			}
			joined = append(joined, pg.Text...)
			switch {
			case pg.CutLine && pg.Lines > 1:
				lr = LineRange{Offset: pg.last() - 1, Limit: lim, Column: int64(len(pg.Text) - pg.LastStart)}
			case pg.CutLine:
				lr = LineRange{Offset: pg.First - 1, Limit: lim, Column: pg.Column + int64(len(pg.Text))}
			case pg.Lines == 0:
				if lr.Offset < len(lines) {
					t.Fatalf("page at %+v: no lines of %d", lr, len(lines))
				}
			default:
				lr = LineRange{Offset: pg.last(), Limit: lim}
			}
			if len(pg.Text) == 0 && pg.Lines == 0 || lr.Offset >= len(lines) {
				break
			}
			if pages > len(data)+1 {
				t.Fatalf("no end after %d pages", pages)
			}
		}
		if want := bytes.Join(lines[min(offset, len(lines)):], nil); !bytes.Equal(joined, want) {
			t.Fatalf("pages joined = %q, want %q", joined, want)
		}
	})
}

func abs(n int) int {
	return int(uint(n) >> 1) // non-negative for any n, minimum int included
}
