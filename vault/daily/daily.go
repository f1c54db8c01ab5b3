// Package daily works out a vault's daily notes the way Obsidian's Daily
// notes plugin does: where the note for a date lives (its folder and its
// moment.js file-name format, which may hold folders too), and what a new
// one starts with (its template, with {{date}}, {{time}}, {{title}},
// {{date:FORMAT}}, {{date+1d:FORMAT}}, {{yesterday}} and {{tomorrow}}
// filled in). It reads settings and templates from bytes; reading them
// from the vault is the caller's job.
package daily

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"
)

// SettingsFile is where Obsidian keeps the Daily notes plugin's settings,
// relative to the vault root.
const SettingsFile = ".obsidian/daily-notes.json"

// DefaultFormat is Obsidian's default file-name format.
const DefaultFormat = "YYYY-MM-DD"

// Settings are the Daily notes plugin's settings. The zero value is
// Obsidian's default: notes named YYYY-MM-DD in the vault root, no
// template.
type Settings struct {
	Folder   string `json:"folder"`
	Format   string `json:"format"`
	Template string `json:"template"` // a note path, with or without .md
}

// ParseSettings reads the plugin's settings file.
func ParseSettings(data []byte) (Settings, error) {
	var s Settings
	if err := json.Unmarshal(data, &s); err != nil {
		return Settings{}, fmt.Errorf("%s is not valid JSON: %w", SettingsFile, err)
	}
	return s, nil
}

func (s Settings) format() string {
	if strings.TrimSpace(s.Format) == "" {
		return DefaultFormat
	}
	return strings.TrimSpace(s.Format)
}

// Path returns the vault-relative path of the daily note for date.
func (s Settings) Path(date time.Time) string {
	name := Format(date, s.format()) + ".md"
	folder := strings.Trim(strings.TrimSpace(s.Folder), "/")
	if folder == "" {
		return strings.TrimPrefix(path.Clean(name), "/")
	}
	return path.Join(folder, name)
}

// TemplatePath returns the vault-relative path of the template note, or
// "" when none is set.
func (s Settings) TemplatePath() string {
	t := strings.Trim(strings.TrimSpace(s.Template), "/")
	if t == "" {
		return ""
	}
	if !strings.HasSuffix(strings.ToLower(t), ".md") {
		t += ".md"
	}
	return t
}

// ParseDate reads a client's date: "" or "today", "yesterday",
// "tomorrow", a day offset like "-1" or "+7", or YYYY-MM-DD. Days are
// counted in now's time zone.
func ParseDate(s string, now time.Time) (time.Time, error) {
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "", "today":
		return day, nil
	case "yesterday":
		return day.AddDate(0, 0, -1), nil
	case "tomorrow":
		return day.AddDate(0, 0, 1), nil
	}
	if (s[0] == '+' || s[0] == '-') && len(s) > 1 {
		if n, err := strconv.Atoi(s[1:]); err == nil && n <= 100000 {
			if s[0] == '-' {
				n = -n
			}
			return day.AddDate(0, 0, n), nil
		}
	}
	t, err := time.ParseInLocation(time.DateOnly, s, now.Location())
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q: use YYYY-MM-DD, today, yesterday, tomorrow or a day offset like -1", s)
	}
	return t, nil
}

// Fill fills a template for the daily note of date, as the Daily notes
// plugin does: {{date}} and {{title}} are the note's name, {{time}} is
// now as HH:mm, {{date:FORMAT}} and {{time:FORMAT}} format the note's
// date (at the current time of day) with a moment.js format, optionally
// shifted ({{date+1d:YYYY-MM-DD}}; units y q m w d h s), and
// {{yesterday}} / {{tomorrow}} name the neighbouring notes. Anything else
// in braces stays as written.
func (s Settings) Fill(template string, date, now time.Time) string {
	format := s.format()
	var b strings.Builder
	for {
		i := strings.Index(template, "{{")
		if i < 0 {
			b.WriteString(template)
			return b.String()
		}
		j := strings.Index(template[i+2:], "}}")
		if j < 0 {
			b.WriteString(template)
			return b.String()
		}
		b.WriteString(template[:i])
		inner := template[i+2 : i+2+j]
		if out, ok := fillVariable(inner, format, date, now); ok {
			b.WriteString(out)
		} else {
			b.WriteString(template[i : i+4+j])
		}
		template = template[i+4+j:]
	}
}

func fillVariable(inner, format string, date, now time.Time) (string, bool) {
	v := strings.TrimSpace(inner)
	lower := strings.ToLower(v)
	switch lower {
	case "date", "title":
		return Format(date, format), true
	case "time":
		return Format(now, "HH:mm"), true
	case "yesterday":
		return Format(date.AddDate(0, 0, -1), format), true
	case "tomorrow":
		return Format(date.AddDate(0, 0, 1), format), true
	}
	var name string
	switch {
	case strings.HasPrefix(lower, "date"):
		name = "date"
	case strings.HasPrefix(lower, "time"):
		name = "time"
	default:
		return "", false
	}
	rest := strings.TrimSpace(v[len(name):])
	layout := format
	if name == "time" {
		layout = "HH:mm"
	}
	when := time.Date(date.Year(), date.Month(), date.Day(), now.Hour(), now.Minute(), now.Second(), 0, date.Location())
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		k := 1
		for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' {
			k++
		}
		if k == 1 || k >= len(rest) {
			return "", false
		}
		n, err := strconv.Atoi(rest[1:k])
		if err != nil || n > 100000 {
			return "", false
		}
		if rest[0] == '-' {
			n = -n
		}
		switch rest[k] {
		case 'y':
			when = when.AddDate(n, 0, 0)
		case 'q':
			when = when.AddDate(0, 3*n, 0)
		case 'm':
			when = when.AddDate(0, n, 0)
		case 'w':
			when = when.AddDate(0, 0, 7*n)
		case 'd':
			when = when.AddDate(0, 0, n)
		case 'h':
			when = when.Add(time.Duration(n) * time.Hour)
		case 's':
			when = when.Add(time.Duration(n) * time.Second)
		default:
			return "", false
		}
		rest = strings.TrimSpace(rest[k+1:])
	}
	if rest != "" {
		if rest[0] != ':' {
			return "", false
		}
		layout = strings.TrimSpace(rest[1:])
	}
	return Format(when, layout), true
}
