package mcpwire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"sync"
)

const (
	// readerSize is the line reader's buffer: a line arrives in pieces of
	// at most this size.
	readerSize = 64 << 10
	// keepBuffer is the most buffer capacity kept between lines; a larger
	// one, grown for a big message, is let go so its memory returns.
	keepBuffer = 1 << 20
	// headBytes and tailBytes of an oversized line are kept to find its id.
	headBytes = 4 << 10
	tailBytes = 512
)

// lineReader reads newline-delimited messages, never buffering more than
// max bytes of one.
type lineReader struct {
	br  *bufio.Reader
	max int64
	buf []byte
}

func newLineReader(r io.Reader, max int64) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, readerSize), max: max}
}

// oversized is a line longer than the limit: its size, and its first and
// last bytes.
type oversized struct {
	size       int64
	head, tail []byte
}

// next returns the next line without its line break (valid until the
// next call), or, for a line over the limit, nil and what was kept of it.
// err is the read error that ended the input (io.EOF at the end); a last
// line without a line break comes with it.
func (r *lineReader) next() (line []byte, over *oversized, err error) {
	if cap(r.buf) > keepBuffer {
		r.buf = nil
	}
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case over != nil:
			over.size += int64(len(chunk))
			over.tail = keepTail(over.tail, chunk)
		case int64(len(r.buf)+len(bytes.TrimRight(chunk, "\r\n"))) > r.max:
			over = &oversized{size: int64(len(r.buf) + len(chunk))}
			whole := append(r.buf, chunk...)
			over.head = bytes.Clone(whole[:min(len(whole), headBytes)])
			over.tail = keepTail(nil, whole)
			r.buf = nil
		default:
			r.buf = append(r.buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if over != nil {
			over.size -= int64(len(trailingBreak(over.tail)))
			return nil, over, err
		}
		return bytes.TrimRight(r.buf, "\r\n"), nil, err
	}
}

// keepTail appends chunk to tail and keeps the last tailBytes.
func keepTail(tail, chunk []byte) []byte {
	tail = append(tail, chunk...)
	if len(tail) > tailBytes {
		tail = append(tail[:0], tail[len(tail)-tailBytes:]...)
	}
	return tail
}

func trailingBreak(b []byte) []byte {
	return b[len(bytes.TrimRight(b, "\r\n")):]
}

// tailID finds a top-level "id" member closing a JSON object: `"id":7}` at
// the very end can only be the outermost object's own (a nested object
// would be followed by more closing braces, a string by a quote).
var tailID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*}\s*$`)
})

// id finds the request id of an oversized message, so the error can be
// matched to its request: among the members read before the message's
// first large value (clients such as mcp-go write the id before the
// params), or at its end (the TypeScript SDK writes the id last). nil
// when neither holds it.
func (o *oversized) id() json.RawMessage {
	if id := headID(o.head); id != nil {
		return id
	}
	if m := tailID().FindSubmatch(bytes.TrimRight(o.tail, "\r\n")); m != nil {
		if _, ok := idKey(m[1]); ok {
			return json.RawMessage(bytes.Clone(m[1]))
		}
	}
	return nil
}

// headID reads the top-level members of a truncated JSON object until it
// finds "id" or runs out of bytes.
func headID(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		name, ok := t.(string)
		if !ok {
			return nil
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if name == "id" {
			if _, ok := idKey(value); ok {
				return value
			}
			return nil
		}
	}
}
