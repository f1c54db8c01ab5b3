package prompts

import (
	"context"
	"runtime/debug"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/guides"
	"vaultmcp/vault"
)

// MaxValues is the most values one completion answer holds (the MCP
// limit).
const MaxValues = 100

// Completer answers completion/complete for the prompts' arguments. A
// prompt or argument it does not know gets an empty list, never an error:
// clients ask about every argument they show.
type Completer struct {
	o Options
}

// NewCompleter returns the completion provider for the prompts of All(o).
func NewCompleter(o Options) *Completer { return &Completer{o: o} }

var _ server.PromptCompletionProvider = (*Completer)(nil)

// CompletePromptArgument implements server.PromptCompletionProvider.
func (c *Completer) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (res *mcp.Completion, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.o.logger().Error("completion panicked", "prompt", prompt, "argument", arg.Name, "panic", p, "stack", string(debug.Stack()))
			res, err = &mcp.Completion{Values: []string{}}, nil
		}
	}()
	if prompt != CreateNote {
		return Complete(nil, ""), nil
	}
	switch arg.Name {
	case ArgNoteType:
		return Complete(guides.NoteTypes(), arg.Value), nil
	case ArgFolder:
		return Complete(list(ctx, c.o.Folders), strings.TrimPrefix(arg.Value, "/")), nil
	case ArgTags:
		return completeTags(list(ctx, c.o.Tags), arg.Value), nil
	}
	return Complete(nil, ""), nil
}

func list(ctx context.Context, fn func(context.Context) []string) []string {
	if fn == nil {
		return nil
	}
	return fn(ctx)
}

// completeTags completes the last tag of a comma-separated list, leaving
// out tags already in it; each value is the whole list with that tag.
func completeTags(tags []string, typed string) *mcp.Completion {
	head, last := "", typed
	if i := strings.LastIndexByte(typed, ','); i >= 0 {
		head, last = typed[:i+1], typed[i+1:]
	}
	lead := last[:len(last)-len(strings.TrimLeft(last, " "))]
	last = strings.TrimPrefix(strings.TrimSpace(last), "#")
	have := map[string]bool{}
	for _, t := range splitTags(head) {
		have[strings.ToLower(t)] = true
	}
	candidates := make([]string, 0, len(tags))
	for _, t := range tags {
		if !have[strings.ToLower(t)] {
			candidates = append(candidates, t)
		}
	}
	res := Complete(candidates, last)
	for i, v := range res.Values {
		res.Values[i] = head + lead + v
	}
	return res
}

// Complete ranks the values that match what was typed so far, ignoring
// case, accents and Unicode form (vault.LooseName: "ete" offers
// "Été 2026", stored composed or decomposed): those starting with it
// first, then those with a word or path segment starting with it, then
// those containing it; each group keeps the order of values (alphabetical
// paths, tags by use). Values come back as given. At most MaxValues are
// returned, with the total and whether there are more.
func Complete(values []string, typed string) *mcp.Completion {
	typed = vault.LooseName(typed)
	var prefix, word, inside []string
	for _, v := range values {
		lv := vault.LooseName(v)
		switch {
		case strings.HasPrefix(lv, typed):
			prefix = append(prefix, v)
		case wordStart(lv, typed):
			word = append(word, v)
		case strings.Contains(lv, typed):
			inside = append(inside, v)
		}
	}
	all := append(append(prefix, word...), inside...)
	res := &mcp.Completion{Values: all, Total: len(all)}
	if len(all) > MaxValues {
		res.Values, res.HasMore = all[:MaxValues], true
	}
	if res.Values == nil {
		res.Values = []string{}
	}
	return res
}

// wordStart reports whether typed starts a word or path segment of v.
func wordStart(v, typed string) bool {
	for i := 1; i < len(v); i++ {
		switch v[i-1] {
		case '/', ' ', '-', '_', '.':
			if strings.HasPrefix(v[i:], typed) {
				return true
			}
		}
	}
	return false
}
