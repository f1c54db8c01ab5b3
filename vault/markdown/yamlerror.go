package markdown

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// SyntaxError is a frontmatter block that is not valid YAML. In a vault
// the usual cause is a property holding several unquoted wikilinks on one
// line ("narrower: [[A]], [[B]]"): YAML reads "[[A]]" as a list nested in
// a list and then stumbles on what follows. One unquoted link alone
// ("broader: [[A]]") is valid YAML and reads as a link.
type SyntaxError struct {
	// Line is the note's line the problem is on (1-based, the opening ---
	// being line 1); 0 when the parser did not say.
	Line int
	// Msg is the parser's description, without its "yaml: line N:".
	Msg string
	// Key and Links name the first property written as several unquoted
	// wikilinks on one line, when there is one (Line is then its line):
	// the likeliest cause, which Hint shows fixed.
	Key   string
	Links []string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("frontmatter that is not valid YAML (line %d: %s)", e.Line, e.Msg)
	}
	return fmt.Sprintf("frontmatter that is not valid YAML (%s)", e.Msg)
}

// Hint says how to write wikilinks in a list so that YAML reads them,
// with the note's own property and links when one was found.
func (e *SyntaxError) Hint() string {
	key, links := e.Key, e.Links
	if key == "" || len(links) == 0 {
		key, links = "narrower", []string{"[[A]]", "[[B]]"}
	}
	quoted := make([]string, len(links))
	for i, l := range links {
		quoted[i] = strconv.Quote(l)
	}
	return fmt.Sprintf("quote wikilinks in lists: %s: [%s]", key, strings.Join(quoted, ", "))
}

// syntaxError describes err, yaml's answer to text, the frontmatter
// whose first line is line firstLine of the note.
func syntaxError(err error, text []byte, firstLine int) *SyntaxError {
	e := &SyntaxError{Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	if rest, ok := strings.CutPrefix(e.Msg, "line "); ok {
		if num, msg, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil && n > 0 {
				e.Line, e.Msg = firstLine+n-1, msg
			}
		}
	}
	// yaml often names the line where the mapping began rather than the
	// faulty one; an unquoted list of links is the likelier culprit.
	for i, line := range bytes.Split(text, []byte{'\n'}) {
		if key, links := unquotedLinks(string(line)); key != "" {
			e.Line, e.Key, e.Links = firstLine+i, key, links
			break
		}
	}
	return e
}

// unquotedLinks reports a "key: [[A]], [[B]]" line: a property whose
// value starts with an unquoted wikilink followed by more text. It
// returns the key and the links, or "" when the line is not one.
func unquotedLinks(line string) (string, []string) {
	i := strings.Index(line, ": [[")
	if i < 0 {
		return "", nil
	}
	key, value := strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+2:])
	if key == "" || strings.HasPrefix(key, "#") {
		return "", nil
	}
	end := strings.Index(value, "]]")
	if end < 0 || strings.TrimSpace(value[end+2:]) == "" {
		return "", nil // one link alone is valid YAML
	}
	var links []string
	for rest := value; ; {
		i := strings.Index(rest, "[[")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "]]")
		if j < 0 {
			break
		}
		links = append(links, rest[i:i+j+2])
		rest = rest[i+j+2:]
	}
	return key, links
}
