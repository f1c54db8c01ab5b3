package tools

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
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
		{"a cut inside a rune", "aé\nb\n", LineRange{}, 2, "a", 1, 2, true},
		{"CRLF kept", "a\r\nb\r\n", LineRange{Limit: limit(1)}, 100, "a\r\n", 1, 2, false},
	}
	for _, tt := range tests {
		pg, err := readLines(strings.NewReader(tt.data), int64(len(tt.data)), tt.lr, tt.maxBytes)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(pg.Text) != tt.text || pg.Lines != tt.lines || pg.TotalLines != tt.total || pg.CutLine != tt.cut {
			t.Errorf("%s: text %q lines %d of %d cut %v; want %q %d of %d cut %v",
				tt.name, pg.Text, pg.Lines, pg.TotalLines, pg.CutLine, tt.text, tt.lines, tt.total, tt.cut)
		}
	}
	if _, err := readLines(strings.NewReader("a\n"), 2, LineRange{Offset: 1}, 100); !errors.Is(err, errPastEnd) {
		t.Errorf("offset past the end: %v", err)
	}
	if pg, _ := readLines(strings.NewReader("PK\x00\x01"), 4, LineRange{}, 100); !pg.Binary {
		t.Error("NUL byte: not binary")
	}
	if pg, _ := readLines(strings.NewReader("caf\xe9\n"), 5, LineRange{}, 100); !pg.Binary {
		t.Error("Latin-1: not binary")
	}
}

// FuzzReadLines pages through any text: every page is the file's lines
// from its offset (a cut line only at the end, shortened), within the
// byte limit, with the file's true line count; and when no line is
// longer than a page, the pages joined are the file.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), 0, 0, 4)
	f.Add([]byte("one line without end"), 0, 2, 5)
	f.Add([]byte("é\r\nü\n\n\nlast"), 1, 1, 3)
	f.Add(bytes.Repeat([]byte("x"), 500), 0, 0, 100)
	f.Fuzz(func(t *testing.T, data []byte, offset, limit, maxBytes int) {
		if len(data) > 4096 || bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return // each page reads the whole file: keep runs quick
		}
		offset, maxBytes = abs(offset)%8, abs(maxBytes)%200+utf8.UTFMax
		var lim *int
		if limit = abs(limit) % 5; limit > 0 {
			lim = &limit
		}
		lines := splitLines(data)
		longest := 0
		for _, l := range lines {
			longest = max(longest, len(l))
		}
		start := offset
		var joined []byte
		for pages := 0; ; pages++ {
			pg, err := readLines(bytes.NewReader(data), int64(len(data)), LineRange{Offset: offset, Limit: lim}, maxBytes)
			if errors.Is(err, errPastEnd) {
				if offset < len(lines) {
					t.Fatalf("offset %d of %d lines: past the end", offset, len(lines))
				}
				break
			}
			if err != nil || pg.Binary {
				t.Fatalf("page at %d: %v, binary %v", offset, err, pg.Binary)
			}
			if pg.TotalLines != len(lines) || len(pg.Text) > maxBytes || (lim != nil && pg.Lines > *lim) {
				t.Fatalf("page at %d: %d lines of %d, %d bytes (max %d)", offset, pg.Lines, pg.TotalLines, len(pg.Text), maxBytes)
			}
			want := bytes.Join(lines[min(offset, len(lines)):min(offset+pg.Lines, len(lines))], nil)
			if pg.CutLine && !bytes.HasPrefix(want, pg.Text) || !pg.CutLine && !bytes.Equal(want, pg.Text) {
				t.Fatalf("page at %d = %q, want lines %q", offset, pg.Text, want)
			}
			if len(lines) == 0 || pg.Lines == 0 {
				break
			}
			joined = append(joined, pg.Text...)
			offset += pg.Lines
			if offset >= len(lines) || pages > len(data)+1 {
				break
			}
		}
		if start == 0 && longest <= maxBytes && !bytes.Equal(joined, data) {
			t.Fatalf("pages joined = %q, want %q", joined, data)
		}
	})
}

func abs(n int) int {
	return int(uint(n) >> 1) // non-negative for any n, minimum int included
}
