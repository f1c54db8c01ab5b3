package vaultgen

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// A varied vault (Options.Varied) looks like the vaults people keep:
// half the notes are named and written in English, the rest in French,
// German, Greek, Japanese or Chinese (a few accented names stored
// decomposed, as macOS writes them); folders nest up to five deep; one
// note in twenty-five embeds an attachment (a PNG image or a PDF, binary);
// frontmatter uses block lists, quoted strings, numbers, booleans, dates,
// links and now and then a nested mapping; Obsidian's settings folder and
// trash are there too. A handful of notes carry the rare words of
// RareWords, in mixed case, for searches.

// RareWords are words that a varied vault holds in a few notes only, in
// varied case: an ASCII word, an accented one, a Greek one and a Japanese
// one.
var RareWords = []string{"zymurgy", "Quetzalcóatl", "Ψυχοπομπός", "量子もつれ"}

// rareEvery spreads each rare word over one note in rareEvery.
const rareEvery = 997

// language is the prose and the name stems of one language.
type language struct {
	stems []string
	words []string
	cjk   bool // written without spaces between words
}

var languages = []language{
	{stems: []string{"Note"}, words: words},
	{stems: []string{"Réunion d’équipe", "Café crème", "Idée", "Élève", "Déjà vu"}, words: strings.Fields(`réunion équipe projet idée café
élève déjà été très où garçon français noël hôtel fenêtre forêt château bientôt première leçon cœur sœur œuvre
naïf Noël à côté façade reçu être mémoire recherche écriture lecture`)},
	{stems: []string{"Übersicht", "Straße", "Größe", "Fußnote", "Äpfel"}, words: strings.Fields(`Übersicht Straße größer
Fußgänger schön Mädchen Brücke Käse müde Tür Grüße Bücher Zürich Äpfel Öl Übung Wörter Gedächtnis Suche Verlauf
Entwurf Besprechung prüfen Lösung für über`)},
	{stems: []string{"Σημείωση", "Ιδέα", "Σύνοψη", "Μελέτη"}, words: strings.Fields(`σημείωση ιδέα έργο συνάντηση γράφημα
μνήμη αναζήτηση ιστορικό κλάδος διακομιστής Αθήνα Ελλάδα λόγος ψυχή σχέδιο ερώτηση απάντηση πηγή ανάγνωση
γραφή ΣΗΜΕΙΩΣΗ Όμηρος`)},
	{stems: []string{"会議メモ", "ノート", "日記", "研究"}, cjk: true, words: strings.Fields(`会議 記録 研究 日記 検索 記憶 図表 歴史 東京
ノート アイデア プロジェクト 質問 回答 資料 読書 設計 計画 毎日`)},
	{stems: []string{"笔记", "会议记录", "想法", "总结"}, cjk: true, words: strings.Fields(`笔记 会议 记录 想法 总结 项目 研究 搜索 记忆
图表 历史 北京 问题 答案 来源 阅读 写作 计划 每天 系统`)},
}

// langOf returns the language of note i: five in ten English, then one in
// ten each of the others.
func langOf(i int) int { return max(0, i%10-4) }

// variedName returns the name of note i in a varied vault.
func variedName(i int) string {
	l := languages[langOf(i)]
	return fmt.Sprintf("%s %05d", l.stems[(i/10)%len(l.stems)], i)
}

var (
	topFolders = []string{"Projects", "Areas", "Resources", "Archive", "Journal", "Zettelkasten", "Réunions", "Übersichten", "Σημειώσεις", "日記"}
	subFolders = []string{"2024", "2025", "clients", "équipe", "Bücher", "ιδέες", "資料", "drafts", "Q1", "Q3", "reading notes", "图书"}
)

// variedDir returns the folder of note i: one of thirty folders, one to
// five levels deep, below each top folder (about 350 folders in all).
func variedDir(i int) string {
	top := i % len(topFolders)
	k := (i / len(topFolders)) % 30
	parts := []string{topFolders[top]}
	for d := 0; d < k%5; d++ {
		parts = append(parts, subFolders[(k*7+d*5+top)%len(subFolders)])
	}
	return strings.Join(parts, "/")
}

// variedPath returns the vault-relative path of note i in a varied vault.
// One accented name in eight is stored decomposed (NFD).
func variedPath(i int) string {
	name := variedName(i)
	if langOf(i) == 1 && (i/10)%8 == 3 {
		name = norm.NFD.String(name)
	}
	return variedDir(i) + "/" + name + ".md"
}

var variedTags = []string{"project", "idea", "area/work", "status/draft", "reading", "projet/actif", "café",
	"Übersicht", "σημείωση", "日本語", "读书", "zettel"}

// variedNote renders note i of a varied vault: about 2 KB.
func variedNote(r *rand.Rand, i, n, links int, attachment string) string {
	lang := languages[langOf(i)]
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "title: %q\n", variedName(i))
	if i%3 == 0 {
		fmt.Fprintf(&b, "aliases:\n  - %s %d\n", lang.words[r.IntN(len(lang.words))], i)
	}
	if i%2 == 0 {
		fmt.Fprintf(&b, "tags:\n  - %s\n  - %s\n", variedTags[r.IntN(len(variedTags))], variedTags[r.IntN(len(variedTags))])
	} else {
		fmt.Fprintf(&b, "tags: [%s, %s]\n", variedTags[r.IntN(len(variedTags))], variedTags[r.IntN(len(variedTags))])
	}
	fmt.Fprintf(&b, "created: 2025-%02d-%02d\n", 1+i%12, 1+i%28)
	if i%4 == 0 {
		fmt.Fprintf(&b, "updated: 2025-%02d-%02dT%02d:%02d:00Z\n", 1+i%12, 1+i%28, i%24, i%60)
	}
	if i%5 == 0 {
		fmt.Fprintf(&b, "rating: %d\ndraft: %v\n", i%6, i%2 == 0)
	}
	if i%7 == 0 && i > 0 {
		fmt.Fprintf(&b, "up: \"[[%s]]\"\n", variedName(r.IntN(n)))
	}
	if i%20 == 0 {
		fmt.Fprintf(&b, "source:\n  author: %s\n  url: https://example.org/%d\n", lang.stems[0], i)
	}
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# %s\n\n", variedName(i))
	if attachment != "" {
		fmt.Fprintf(&b, "![[%s]]\n\n", path.Base(attachment))
	}
	nl := links/2 + r.IntN(links+1)
	for p := 0; b.Len() < 1900; p++ {
		if p%4 == 3 {
			fmt.Fprintf(&b, "## Section %d\n\n", p/4+1)
		}
		for w := 0; w < 30; w++ {
			ws := lang.words
			if r.IntN(8) == 0 {
				ws = languages[r.IntN(len(languages))].words // a foreign word now and then
			}
			b.WriteString(ws[r.IntN(len(ws))])
			if !lang.cjk {
				b.WriteByte(' ')
			} else if w%6 == 5 {
				b.WriteString("。")
			}
			if nl > 0 && r.IntN(10) == 0 {
				nl--
				b.WriteString(variedLink(r, n))
				b.WriteByte(' ')
			}
			if r.IntN(40) == 0 {
				fmt.Fprintf(&b, "#%s ", variedTags[r.IntN(len(variedTags))])
			}
		}
		if p == 1 {
			for k, word := range RareWords {
				if (i+k*131)%rareEvery == 0 {
					b.WriteString(rareCase(word, i) + " ")
				}
			}
		}
		b.WriteString("\n\n")
		if p == 2 && i%5 == 0 {
			b.WriteString("```go\n// [[Not A Link]] #not-a-tag\nfunc main() {}\n```\n\n")
		}
	}
	for ; nl > 0; nl-- {
		b.WriteString("- " + variedLink(r, n) + "\n")
	}
	return b.String()
}

// rareCase writes a rare word as it is, in upper case or in lower case.
func rareCase(w string, i int) string {
	switch i % 3 {
	case 1:
		return strings.ToUpper(w)
	case 2:
		return strings.ToLower(w)
	}
	return w
}

// variedLink returns a link to a random note in one of Obsidian's forms,
// Markdown links included; about one in twenty names nothing.
func variedLink(r *rand.Rand, n int) string {
	if r.IntN(20) == 0 {
		return fmt.Sprintf("[[Missing %d]]", r.IntN(1000))
	}
	j := r.IntN(n)
	switch r.IntN(8) {
	case 0:
		return "[[" + variedName(j) + "|alias]]"
	case 1:
		return "[[" + variedName(j) + "#Section 1]]"
	case 2:
		return "[[" + variedDir(j) + "/" + variedName(j) + "]]"
	case 3:
		// Obsidian writes Markdown links from the vault root with spaces
		// percent-encoded; some tools encode every byte that is not ASCII.
		dest := variedDir(j) + "/" + variedName(j) + ".md"
		if j%4 == 0 {
			dest = (&url.URL{Path: dest}).EscapedPath()
		}
		return "[" + variedName(j) + "](" + strings.ReplaceAll(dest, " ", "%20") + ")"
	default:
		return "[[" + variedName(j) + "]]"
	}
}

// attachmentOf returns the attachment note i embeds ("" for none): a PNG
// or a PDF in its top folder's attachments folder.
func attachmentOf(i int) string {
	if i%25 != 3 {
		return ""
	}
	ext := ".png"
	if i%50 == 28 {
		ext = ".pdf"
	}
	return fmt.Sprintf("%s/attachments/%s-%05d%s", topFolders[i%len(topFolders)], []string{"image", "scan"}[i%2], i, ext)
}

// attachmentBytes renders a binary attachment of 8 to 64 KB that starts
// the way its type does.
func attachmentBytes(r *rand.Rand, rel string) []byte {
	size := 8<<10 + r.IntN(56<<10)
	data := make([]byte, size)
	for k := 0; k+8 <= size; k += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			data[k+j] = byte(v >> (8 * j))
		}
	}
	head := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	if strings.HasSuffix(rel, ".pdf") {
		head = []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nstream\n\x00")
	}
	copy(data, head)
	return data
}

// variedExtras writes what a vault holds besides notes: Obsidian's
// settings and trash, which scans leave out.
func variedExtras(dir string) error {
	files := map[string]string{
		".obsidian/app.json":       `{"attachmentFolderPath": "attachments", "newLinkFormat": "shortest"}` + "\n",
		".obsidian/workspace.json": `{"main": {"type": "split"}, "lastOpenFiles": ["Journal/2025/01.md"]}` + "\n",
		".trash/Old note.md":       "# Old note\n\nzymurgy in the trash is not searched.\n",
	}
	for rel, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
