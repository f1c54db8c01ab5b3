// Package vaultgen writes synthetic Obsidian vaults for benchmarks and
// load tests: notes of realistic size and shape (frontmatter, headings,
// wikilinks in every form, tags, a code block now and then), spread over
// nested folders, deterministic for a given seed. Some notes can be SKOS
// concept notes forming a knowledge graph (Options.Concepts), and a vault
// can be as varied as people's are (Options.Varied: several languages and
// scripts, attachments, deeper folders; see varied.go).
package vaultgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Options shape a generated vault. The zero value makes 1,000 notes.
type Options struct {
	Notes int    // number of notes; 0 means 1,000
	Seed  uint64 // same seed, same vault
	// LinksPerNote is the average number of wikilinks; 0 means 8.
	LinksPerNote int
	// HubLinks, when set, makes note HubNote a popular one, as real vaults
	// have (generated links are otherwise uniform: a handful per note):
	// notes 100 to 100+HubLinks-1 end with a line linking to it,
	// "See [[name]].". Generate fails if the vault has fewer than
	// 100+HubLinks notes.
	HubLinks int
	// ExtraBrokenNames, when set, widens the names the broken links use.
	// The links written among the prose name nothing one time in twenty,
	// drawing from 1,000 names (Missing 0 to Missing 999: a 10,000-note
	// vault's 4,000 such links name about 970 of them); with it, one note
	// in twenty (i%20 == 7) also ends with a line linking to one of
	// ExtraBrokenNames more (Missing 1000 onward), each named by a note
	// or more while the vault has 20 notes per name.
	//
	// Both are appended to notes once written, so the rest of every note,
	// and every other note, is as without them.
	ExtraBrokenNames int
	// Concepts is how many of the notes are concept notes, spread evenly
	// (see concepts.go); 0 means none.
	Concepts int
	// ConceptsInert writes the concept notes with their prefLabel key
	// misspelt, so the same bytes make no concept: a control vault for
	// measuring what the concept graph costs.
	ConceptsInert bool
	// Varied makes the vault as varied as real ones (see varied.go):
	// names and prose in six languages and four scripts, deeper folders,
	// binary attachments, richer frontmatter. The package's Name and
	// Path then do not describe it: use Vault.Name and Vault.Path.
	Varied bool
}

// Vault describes what Generate wrote.
type Vault struct {
	Dir   string
	Paths []string // vault-relative note paths, in generation order
	Bytes int64    // of the notes
	// Attachments are the vault-relative paths of the binary files
	// (varied vaults), AttachmentBytes their size.
	Attachments     []string
	AttachmentBytes int64

	varied bool
}

// HubNote is the note that Options.HubLinks makes popular.
const HubNote = 15

// Name returns the name (file name without .md) of note i of this vault.
func (v *Vault) Name(i int) string {
	if v.varied {
		return variedName(i)
	}
	return Name(i)
}

// Path returns the vault-relative path of note i of this vault.
func (v *Vault) Path(i int) string { return v.Paths[i] }

// Name returns the note name (file name without .md) of note i.
func Name(i int) string { return fmt.Sprintf("Note %05d", i) }

// Path returns the vault-relative path of note i.
func Path(i int) string {
	return fmt.Sprintf("area-%02d/topic-%02d/%s.md", i%20, (i/20)%10, Name(i))
}

var words = strings.Fields(`vault note idea project meeting review draft research link graph
concept summary question answer source reading writing plan task daily weekly garden seed
system design memory index search commit history branch merge remote server client agent`)

var tags = []string{"project", "idea", "area/work", "area/home", "status/draft", "status/done", "reading", "meeting", "zettel", "日本語"}

// Generate writes a vault into dir, which is created if missing.
func Generate(dir string, opts Options) (*Vault, error) {
	n := opts.Notes
	if n <= 0 {
		n = 1000
	}
	links := opts.LinksPerNote
	if links <= 0 {
		links = 8
	}
	if opts.Varied && opts.Concepts > 0 {
		return nil, fmt.Errorf("generate: concept notes are named as in the plain vault; Varied and Concepts do not combine")
	}
	if opts.HubLinks > 0 && n < 100+opts.HubLinks {
		return nil, fmt.Errorf("generate: %d links to a popular note need at least %d notes, not %d", opts.HubLinks, 100+opts.HubLinks, n)
	}
	r := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	v := &Vault{Dir: dir, Paths: make([]string, 0, n), varied: opts.Varied}
	write := func(rel string, data []byte) error {
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return fmt.Errorf("generate %s: %w", rel, err)
		}
		if err := os.WriteFile(abs, data, 0o644); err != nil {
			return fmt.Errorf("generate %s: %w", rel, err)
		}
		return nil
	}
	for i := 0; i < n; i++ {
		rel := Path(i)
		var content string
		if opts.Varied {
			rel = variedPath(i)
			att := attachmentOf(i)
			content = variedNote(r, i, n, links, att)
			if att != "" {
				data := attachmentBytes(r, att)
				if err := write(att, data); err != nil {
					return nil, err
				}
				v.Attachments = append(v.Attachments, att)
				v.AttachmentBytes += int64(len(data))
			}
		} else {
			content = note(r, i, n, links)
		}
		if k, ok := conceptIndex(i, n, opts.Concepts); ok {
			content = withConcept(content, k, n, opts)
		}
		if i >= 100 && i < 100+opts.HubLinks {
			content += "\nSee [[" + v.Name(HubNote) + "]].\n"
		}
		if opts.ExtraBrokenNames > 0 && i%20 == 7 {
			content += fmt.Sprintf("\nTo write: [[Missing %d]].\n", 1000+(i/20)%opts.ExtraBrokenNames)
		}
		if err := write(rel, []byte(content)); err != nil {
			return nil, err
		}
		v.Paths = append(v.Paths, rel)
		v.Bytes += int64(len(content))
	}
	if opts.Varied {
		if err := variedExtras(dir); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// note renders note i: about 2 KB.
func note(r *rand.Rand, i, n, links int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s\ntags: [%s, %s]\ncreated: 2025-%02d-%02d\n---\n\n", Name(i),
		tags[r.IntN(len(tags))], tags[r.IntN(len(tags))], 1+i%12, 1+i%28)
	fmt.Fprintf(&b, "# %s\n\n", Name(i))
	nl := links/2 + r.IntN(links+1)
	for p := 0; b.Len() < 1900; p++ {
		if p%4 == 3 {
			fmt.Fprintf(&b, "## Section %d\n\n", p/4+1)
		}
		for w := 0; w < 30; w++ {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
			if nl > 0 && r.IntN(10) == 0 {
				nl--
				b.WriteString(link(r, n))
				b.WriteByte(' ')
			}
			if r.IntN(40) == 0 {
				fmt.Fprintf(&b, "#%s ", tags[r.IntN(len(tags))])
			}
		}
		b.WriteString("\n\n")
		if p == 2 && i%5 == 0 {
			b.WriteString("```go\n// [[Not A Link]] #not-a-tag\nfunc main() {}\n```\n\n")
		}
	}
	for ; nl > 0; nl-- {
		b.WriteString("- " + link(r, n) + "\n")
	}
	return b.String()
}

// link returns a wikilink to a random note, in one of Obsidian's forms;
// about one in twenty points at a note that does not exist.
func link(r *rand.Rand, n int) string {
	if r.IntN(20) == 0 {
		return fmt.Sprintf("[[Missing %d]]", r.IntN(1000))
	}
	j := r.IntN(n)
	switch r.IntN(6) {
	case 0:
		return "[[" + Name(j) + "|alias]]"
	case 1:
		return "[[" + Name(j) + "#Section 1]]"
	case 2:
		return "[[" + strings.TrimSuffix(Path(j), ".md") + "]]"
	default:
		return "[[" + Name(j) + "]]"
	}
}
