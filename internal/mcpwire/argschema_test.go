package mcpwire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"vaultmcp/gitsync"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// reference is a full JSON Schema validator over the same tools, its
// errors worded as ArgChecker words them: the argument check must
// accept and refuse exactly what it does, with the same messages.
type reference struct {
	schemas map[string]*jsonschema.Schema
	params  map[string][]string
	printer *message.Printer
}

func newReference(t testing.TB, v *ArgChecker) *reference {
	t.Helper()
	r := &reference{schemas: map[string]*jsonschema.Schema{}, params: v.params, printer: message.NewPrinter(language.English)}
	for _, st := range tools.All(fullDeps(t)) {
		in := st.Tool.InputSchema
		if in.AdditionalProperties == nil {
			in.AdditionalProperties = false
		}
		raw, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		url := "mem:///tools/" + st.Tool.Name + ".json"
		c := jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		if r.schemas[st.Tool.Name], err = c.Compile(url); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// check returns "" for valid arguments, else the message.
func (r *reference) check(tool string, data []byte) string {
	args, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return "undecodable"
	}
	err = r.schemas[tool].Validate(args)
	if err == nil {
		return ""
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return "invalid arguments: " + err.Error()
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		msgs = append(msgs, r.leaf(tool, e))
	}
	walk(verr)
	slices.Sort(msgs)
	msgs = slices.Compact(msgs)
	return "invalid arguments for " + tool + ": " + strings.Join(msgs, "; ")
}

func (r *reference) leaf(tool string, e *jsonschema.ValidationError) string {
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return "missing required argument " + quoteAll(k.Missing)
	case *kind.AdditionalProperties:
		names := slices.Sorted(slices.Values(k.Properties))
		if len(r.params[tool]) == 0 {
			return fmt.Sprintf("unknown argument %s (%s takes no arguments)", quoteAll(names), tool)
		}
		return fmt.Sprintf("unknown argument %s (%s takes: %s)", quoteAll(names), tool, strings.Join(r.params[tool], ", "))
	case *kind.Type:
		if len(e.InstanceLocation) == 0 {
			return "arguments must be a JSON object"
		}
	}
	where := strings.Join(e.InstanceLocation, ".")
	switch k := e.ErrorKind.(type) {
	case *kind.Maximum:
		return fmt.Sprintf("argument %q: must be at most %s, got %s", where, ratString(k.Want), ratString(k.Got))
	case *kind.Minimum:
		return fmt.Sprintf("argument %q: must be at least %s, got %s", where, ratString(k.Want), ratString(k.Got))
	case *kind.MaxLength:
		return fmt.Sprintf("argument %q: must be at most %d characters long, got %d", where, k.Want, k.Got)
	case *kind.MinLength:
		return fmt.Sprintf("argument %q: must be at least %d characters long, got %d", where, k.Want, k.Got)
	}
	// The check writes counts without thousands separators, as it
	// writes bounds.
	return fmt.Sprintf("argument %q: %s", where, grouped.ReplaceAllString(e.ErrorKind.LocalizedString(r.printer), "$1$2"))
}

var grouped = regexp.MustCompile(`(\d),(\d{3})\b`)

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return strings.TrimRight(strings.TrimRight(r.FloatString(6), "0"), ".")
}

// ours runs ArgChecker's check on encoded arguments.
func ours(t testing.TB, v *ArgChecker, tool string, data []byte) string {
	var args any
	if err := json.Unmarshal(data, &args); err != nil {
		return "undecodable"
	}
	s, err := v.schemas[tool]()
	if err != nil {
		t.Fatal(err)
	}
	if probs := s.check(args, nil, nil); len(probs) > 0 {
		return v.describe(tool, probs)
	}
	return ""
}

var argCases = []struct{ tool, args string }{
	{"read_file", `{}`},
	{"read_file", `{"path":"a.md"}`},
	{"read_file", `{"path":"a.md","offset":-1,"limit":0}`},
	{"read_file", `{"path":"a.md","offset":1.5}`},
	{"read_file", `{"path":"a.md","offset":2.0}`},
	{"read_file", `{"path":7,"bogus":1,"extra":null}`},
	{"read_file", `[]`},
	{"read_file", `"x"`},
	{"read_file", `null`},
	{"list_directory", `{"path":"","max_depth":10000000}`},
	{"list_directory", `{"path":"","recursive":"true"}`},
	{"get_vault_info", `{"x":1}`},
	{"patch_note", `{"path":"a","target_type":"line","target":"x","operation":"append"}`},
	{"patch_note", `{"path":"a","target_type":"heading","target":"x","operation":"insert","content":5}`},
	{"expand_context", `{"concept_id":"x","relation_types":[]}`},
	{"expand_context", `{"concept_id":"x","relation_types":["broader","sideways",3]}`},
	{"expand_context", `{"concept_id":"` + strings.Repeat("é", 1001) + `","max_depth":0.5}`},
	{"grep", `{"query":"` + strings.Repeat("x", 5000) + `"}`},
	{"search_files", `{"pattern":"` + strings.Repeat("é", 1025) + `"}`},
	{"query_notes", `{"filter":5}`},
	{"query_notes", `{"filter":{"a":1},"limit":10001}`},
	{"query_notes", `{"filter":"status = done"}`},
	{"set_properties", `{"path":"a.md","properties":{"x":[1,{"y":null}]},"remove":["a",1]}`},
	{"set_properties", `{"path":"a.md","properties":[]}`},
}

func TestArgCheckMatchesReference(t *testing.T) {
	v := NewArgChecker(tools.All(fullDeps(t)), nil)
	ref := newReference(t, v)
	for _, c := range argCases {
		want := ref.check(c.tool, []byte(c.args))
		if got := ours(t, v, c.tool, []byte(c.args)); got != want {
			t.Errorf("%s %s:\n got %q\nwant %q", c.tool, c.args, got, want)
		}
	}
	// Every tool, with no arguments and with one unknown one.
	for name := range ref.schemas {
		for _, args := range []string{`{}`, `{"zz_unknown":true}`} {
			if got, want := ours(t, v, name, []byte(args)), ref.check(name, []byte(args)); got != want {
				t.Errorf("%s %s:\n got %q\nwant %q", name, args, got, want)
			}
		}
	}
}

func FuzzArgCheck(f *testing.F) {
	v := NewArgChecker(tools.All(fullDeps(f)), nil)
	ref := newReference(f, v)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range ref.schemas {
			if !yield(n) {
				return
			}
		}
	})
	for _, c := range argCases {
		f.Add(uint8(slices.Index(names, c.tool)), c.args)
	}
	f.Fuzz(func(t *testing.T, n uint8, args string) {
		tool := names[int(n)%len(names)]
		want := ref.check(tool, []byte(args))
		if want == "undecodable" || strings.Contains(want, "must be at") {
			// Bounds are compared as exact decimals there and as
			// float64 here (what the handlers decode anyway).
			if (want == "") != (ours(t, v, tool, []byte(args)) == "") && want != "undecodable" {
				t.Errorf("%s %s: valid differs (reference %q)", tool, args, want)
			}
			return
		}
		if got := ours(t, v, tool, []byte(args)); got != want {
			t.Errorf("%s %s:\n got %q\nwant %q", tool, args, got, want)
		}
	})
}

// fullDeps are deps with the index and git, so tools.All offers every
// tool.
func fullDeps(t testing.TB) tools.Deps {
	t.Helper()
	root := t.TempDir()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := gitsync.Open(context.Background(), gitsync.Options{Dir: root, Locker: v.Locker(), Logger: logger, SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	return tools.Deps{Vault: v, Index: index.New(v, logger), Git: repo, Logger: logger}
}
