package tools

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"vaultmcp/internal/tokens"
	"vaultmcp/vault/edit"
)

// LineRange is the part of a file read_file returns: lines, not bytes, so
// an agent can continue where a page ended and quote line numbers that
// grep and get_backlinks also use. Column reaches into a line longer than
// a page: the page starts that many bytes into its first line.
type LineRange struct {
	// Offset is how many lines to skip.
	Offset int `json:"offset"`
	// Limit is the most lines to return; nil means as many as fit.
	Limit *int `json:"limit"`
	// Column is how many bytes of the first line to skip (moved on to a
	// character boundary).
	Column int64 `json:"column"`
}

// linePage is one page of a text file.
type linePage struct {
	Text       []byte
	First      int   // 1-based number of the first line in Text
	Lines      int   // lines in Text (a cut line counts)
	TotalLines int   // lines in the whole file
	Size       int64 // bytes in the whole file
	Binary     bool  // the file is not text: Text is empty, Head its start
	Head       []byte
	// Column is how many bytes of the first line were skipped; FirstLen
	// is that line's length without its line end, when Column > 0 or the
	// line is cut.
	Column, FirstLen int64
	// CutLine says the page's last line is shown only in part: the
	// page's only line, longer than a page (from Column, len(Text)
	// bytes), or a long line after others, begun at Text[LastStart:]
	// (LastLen bytes long without its line end).
	CutLine   bool
	LastStart int
	LastLen   int64
	// PastEnd says the offset (or the column, in its line) lies beyond
	// the file's end: Text is empty.
	PastEnd bool
}

// readLines reads the page of r that lr asks for, at most maxBytes of it
// and maxTokens estimated tokens (package internal/tokens).
// It reads through to the end to count the file's lines, holding only the
// page in memory. A line that does not fit after other lines starts the
// next page instead, unless the page holds less than half its bytes and
// tokens: then, as a line that does not fit in a page of its own, it is
// cut, and Column reads on inside it (a short first page before a line of
// 200 KB cost the agent a call for nothing).
func readLines(r io.Reader, size int64, lr LineRange, maxBytes, maxTokens int) (linePage, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	column := max(lr.Column, 0)
	pg := linePage{Size: size, First: lr.Offset + 1}
	head, err := br.Peek(edit.BinarySniff)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return pg, err
	}
	// The same check refuses text edits of the file (edit.Binary).
	if edit.BinaryHead(head) {
		pg.Binary, pg.Head = true, bytes.Clone(head[:min(len(head), 512)])
		return pg, nil
	}
	var buf bytes.Buffer
	spent := 0             // estimated tokens in buf
	lines := 0             // lines begun so far
	atStart := true        // the next byte begins a line
	full := false          // the page is complete: from here lines are only counted
	lineStart := 0         // where the page's current line begins in buf
	skip := int64(0)       // bytes of the current line still to skip (Column)
	aligning := false      // skipping on to a character boundary after Column
	measuring := false     // counting the first line's length (FirstLen)
	lastSpent := 0         // estimated tokens in buf before the current line
	measuringLast := false // counting a cut last line's length (LastLen)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			begins := atStart
			if begins {
				lines++
				measuring, measuringLast = false, false
			}
			atStart = chunk[len(chunk)-1] == '\n'
			if measuring {
				pg.FirstLen += int64(len(bytes.TrimSuffix(chunk, []byte("\n"))))
			}
			if measuringLast {
				pg.LastLen += int64(len(bytes.TrimSuffix(chunk, []byte("\n"))))
			}
			switch {
			case full || lines <= lr.Offset:
			case begins && lr.Limit != nil && pg.Lines >= *lr.Limit:
				full = true
			default:
				if begins {
					pg.Lines++
					lineStart, lastSpent = buf.Len(), spent
					if pg.Lines == 1 {
						skip, aligning, measuring = column, column > 0, true
						pg.FirstLen = int64(len(bytes.TrimSuffix(chunk, []byte("\n"))))
					}
				}
				data := chunk
				if skip > 0 {
					n := min(skip, int64(len(data)))
					data, skip = data[n:], skip-n
					pg.Column += n
				}
				for skip == 0 && aligning && len(data) > 0 {
					if utf8.RuneStart(data[0]) {
						aligning = false
						break
					}
					data = data[1:]
					pg.Column++
				}
				cost := tokens.Estimate(data)
				switch {
				case buf.Len()+len(data) <= maxBytes && spent+cost <= maxTokens:
					buf.Write(data)
					spent += cost
				case pg.Lines > 1 && (lineStart >= maxBytes/2 || lastSpent >= maxTokens/2):
					// The line starts the next page rather than being cut:
					// this one holds enough already.
					buf.Truncate(lineStart)
					pg.Lines--
					full = true
				default:
					// A line longer than what is left of the page: show its
					// start, and read on inside it.
					if pg.Lines > 1 {
						pg.LastStart, measuringLast = lineStart, true
						pg.LastLen = int64(buf.Len()-lineStart) + int64(len(bytes.TrimSuffix(data, []byte("\n"))))
					}
					buf.Write(data[:min(maxBytes-buf.Len(), tokens.Fit(data, maxTokens-spent))])
					pg.CutLine, full = true, true
				}
			}
		}
		if err == nil || errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		return pg, err
	}
	pg.TotalLines = lines
	if lr.Offset > 0 && lr.Offset >= lines || column > 0 && pg.Lines > 0 && column > pg.FirstLen {
		pg.PastEnd, pg.Lines, pg.Column = true, 0, column
		return pg, nil
	}
	pg.Text = buf.Bytes()
	if pg.CutLine {
		pg.Text = trimPartialRune(pg.Text)
	}
	if !utf8.Valid(pg.Text) {
		return linePage{Size: size, Binary: true, Head: pg.Text[:min(len(pg.Text), 512)]}, nil
	}
	return pg, nil
}

// last is the number of the page's last line.
func (pg linePage) last() int { return pg.First + pg.Lines - 1 }

// whole reports whether the page is the whole file.
func (pg linePage) whole() bool {
	return pg.First == 1 && pg.Lines == pg.TotalLines && !pg.CutLine && pg.Column == 0 && !pg.PastEnd
}

// notice says which part of the file the page is and how to read on; ""
// for the whole file.
func (pg linePage) notice(rel string) string {
	switch {
	case pg.whole():
		return ""
	case pg.PastEnd && pg.First > pg.TotalLines:
		return fmt.Sprintf("[offset=%d is past the end: %s has %s; offset=0 reads from the start]", pg.First-1, rel, plural(pg.TotalLines, "line"))
	case pg.PastEnd:
		return fmt.Sprintf("[column=%d is past the end of line %s, which has %s]", pg.Column, count(pg.First), plural(int(pg.FirstLen), "byte"))
	case pg.CutLine && pg.Lines > 1:
		shown := len(pg.Text) - pg.LastStart
		return fmt.Sprintf("[... truncated: showing lines %s–%s of %s, line %s in part (its bytes 1–%s of %s); read on with offset=%d column=%d ...]",
			count(pg.First), count(pg.last()), count(pg.TotalLines), count(pg.last()), count(shown), count64(pg.LastLen), pg.last()-1, shown)
	case pg.CutLine:
		end := pg.Column + int64(len(pg.Text))
		return fmt.Sprintf("[... truncated: line %s is longer than a page: showing its bytes %s–%s of %s; read on with offset=%d column=%d ...]",
			count(pg.First), count64(pg.Column+1), count64(end), count64(pg.FirstLen), pg.First-1, end)
	case pg.last() < pg.TotalLines:
		from := ""
		if pg.Column > 0 {
			from = fmt.Sprintf(" (line %s from its byte %s)", count(pg.First), count64(pg.Column+1))
		}
		return fmt.Sprintf("[... truncated: showing lines %s–%s of %s%s (%s of %s); read on with offset=%d ...]",
			count(pg.First), count(pg.last()), count(pg.TotalLines), from, humanBytes(int64(len(pg.Text))), humanBytes(pg.Size), pg.last())
	case pg.Column > 0:
		return fmt.Sprintf("[... line %s from its byte %s to the end of the file (%s lines) ...]", count(pg.First), count64(pg.Column+1), count(pg.TotalLines))
	}
	return fmt.Sprintf("[... lines %s–%s of %s: the end of the file ...]", count(pg.First), count(pg.last()), count(pg.TotalLines))
}

func count64(n int64) string { return count(int(n)) }
