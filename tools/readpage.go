package tools

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"vaultmcp/vault/edit"
)

// LineRange is the part of a file read_file returns: lines, not bytes, so
// an agent can continue where a page ended and quote line numbers that
// grep and get_backlinks also use.
type LineRange struct {
	// Offset is how many lines to skip.
	Offset int `json:"offset"`
	// Limit is the most lines to return; nil means as many as fit.
	Limit *int `json:"limit"`
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
	// CutLine says the last line was longer than the page and is shown
	// only in part.
	CutLine bool
}

// errPastEnd marks an offset beyond the file's last line.
var errPastEnd = errors.New("offset past the end")

// readLines reads the page of r that lr asks for, at most maxBytes of it.
// It reads through to the end to count the file's lines, holding only the
// page in memory.
func readLines(r io.Reader, size int64, lr LineRange, maxBytes int) (linePage, error) {
	br := bufio.NewReaderSize(r, 64<<10)
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
	lines := 0      // lines begun so far
	atStart := true // the next byte begins a line
	full := false   // the page is complete: from here lines are only counted
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			begins := atStart
			if begins {
				lines++
			}
			atStart = chunk[len(chunk)-1] == '\n'
			switch {
			case full || lines <= lr.Offset:
			case begins && lr.Limit != nil && pg.Lines >= *lr.Limit:
				full = true
			case buf.Len()+len(chunk) <= maxBytes:
				buf.Write(chunk)
				if begins {
					pg.Lines++
				}
			case begins && pg.Lines > 0:
				full = true // end the page at a line end
			default:
				// One line longer than the whole page: show its start.
				buf.Write(chunk[:maxBytes-buf.Len()])
				if begins {
					pg.Lines++
				}
				pg.CutLine, full = true, true
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
	if lr.Offset > 0 && lr.Offset >= lines {
		return pg, errPastEnd
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
	return pg.First == 1 && pg.Lines == pg.TotalLines && !pg.CutLine
}

// notice says which part of the file the page is and how to read on; ""
// for the whole file.
func (pg linePage) notice() string {
	switch {
	case pg.whole():
		return ""
	case pg.CutLine && pg.Lines == 1:
		return fmt.Sprintf("[... truncated: line %s alone is longer than a page; showing its first %s. Use grep to find the part you need; offset=%d reads on after it ...]",
			count(pg.First), humanBytes(int64(len(pg.Text))), pg.last())
	case pg.last() < pg.TotalLines || pg.CutLine:
		cut := ""
		if pg.CutLine {
			cut = fmt.Sprintf(", line %s cut short", count(pg.last()))
		}
		return fmt.Sprintf("[... truncated: showing lines %s–%s of %s%s (%s of %s); read on with offset=%d ...]",
			count(pg.First), count(pg.last()), count(pg.TotalLines), cut, humanBytes(int64(len(pg.Text))), humanBytes(pg.Size), pg.last())
	}
	return fmt.Sprintf("[... lines %s–%s of %s: the end of the file ...]", count(pg.First), count(pg.last()), count(pg.TotalLines))
}
