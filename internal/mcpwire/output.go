package mcpwire

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// output is the stream to the client. Every message written through it
// (mcp-go writes one per Write, with its line break) is checked for being
// the answer to a pending request, which is then no longer pending.
type output struct {
	mu       sync.Mutex
	w        io.Writer
	pending  *pending
	partial  []byte              // a message not yet ended by its line break
	answered func(method string) // StdioOptions.Answered
}

func (o *output) Write(p []byte) (int, error) {
	var methods []string
	n, err := o.write(p, &methods)
	if o.answered != nil {
		for _, m := range methods {
			o.answered(m)
		}
	}
	return n, err
}

// write writes p and marks the requests it answers, adding their methods
// to methods.
func (o *output) write(p []byte, methods *[]string) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.w.Write(p)
	// Marked answered after it is out: the drain ends only once the
	// client has every answer.
	data := p
	if len(o.partial) > 0 {
		data = append(o.partial, p...)
		o.partial = nil
	}
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		if key, ok := answers(data[:i]); ok {
			if method, ok := o.pending.done(key); ok {
				*methods = append(*methods, method)
			}
		}
		data = data[i+1:]
	}
	if len(data) > 0 {
		o.partial = bytes.Clone(data)
	}
	return n, err
}

// answers reports whether a message is a response (a result or an error
// for an id) and returns its id's key. It reads only as far as it needs:
// mcp-go writes "jsonrpc" and "id" before the result.
func answers(msg []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	var id json.RawMessage
	response := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch t {
		case "method":
			return "", false // a request or notification from the server
		case "result", "error":
			response = true
			if id != nil {
				return idKey(id)
			}
			if err := dec.Decode(&json.RawMessage{}); err != nil {
				return "", false
			}
		case "id":
			if err := dec.Decode(&id); err != nil {
				return "", false
			}
			if response {
				return idKey(id)
			}
		default:
			if err := dec.Decode(&json.RawMessage{}); err != nil {
				return "", false
			}
		}
	}
	if response && id != nil {
		return idKey(id)
	}
	return "", false
}

// pending counts the requests received and not yet answered, by id.
type pending struct {
	mu      sync.Mutex
	ids     map[string]*request
	n       int
	waiters []chan struct{}
}

// request is what is pending under one id: how many requests (a client
// may reuse an id) and the method of the last one.
type request struct {
	n      int
	method string
}

func newPending() *pending { return &pending{ids: map[string]*request{}} }

func (p *pending) add(key, method string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.ids[key]
	if r == nil {
		r = &request{}
		p.ids[key] = r
	}
	r.n++
	r.method = method
	p.n++
}

// done marks one request under key answered and returns its method; ok
// is false for an answer to something not tracked (a parse error).
func (p *pending) done(key string) (method string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.ids[key]
	if r == nil {
		return "", false
	}
	if r.n--; r.n == 0 {
		delete(p.ids, key)
	}
	if p.n--; p.n == 0 {
		for _, w := range p.waiters {
			close(w)
		}
		p.waiters = nil
	}
	return r.method, true
}

func (p *pending) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// idle returns a channel closed once nothing is pending.
func (p *pending) idle() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := make(chan struct{})
	if p.n == 0 {
		close(c)
	} else {
		p.waiters = append(p.waiters, c)
	}
	return c
}
