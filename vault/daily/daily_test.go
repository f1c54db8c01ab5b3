package daily

import (
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	tm := time.Date(2026, time.January, 4, 15, 7, 9, 123456789, time.UTC) // a Sunday
	cases := map[string]string{
		"YYYY-MM-DD":                  "2026-01-04",
		"dddd, MMMM Do YYYY":          "Sunday, January 4th 2026",
		"ddd D MMM YY":                "Sun 4 Jan 26",
		"YYYY/MM/[Daily] YYYY-MM-DD":  "2026/01/Daily 2026-01-04",
		"gggg-[W]ww":                  "2026-W02",
		"GGGG-[W]WW":                  "2026-W01",
		"Qo [quarter], DDDD, E, e, d": "1st quarter, 004, 7, 0, 0",
		"HH:mm:ss.SSS A h a k":        "15:07:09.123 PM 3 pm 15",
		"[YYYY] [is literal]":         "YYYY is literal",
		"X x":                         "1767539229 1767539229123",
		"Mo Wo wo":                    "1st 1st 2nd",
	}
	for layout, want := range cases {
		if got := Format(tm, layout); got != want {
			t.Errorf("Format(%q) = %q, want %q", layout, got, want)
		}
	}
	// Week numbers across year ends, against moment.js.
	weeks := []struct {
		date    string
		us, iso string
	}{
		{"2025-12-28", "2026-01", "2025-52"},
		{"2026-12-31", "2027-01", "2026-53"},
		{"2027-01-01", "2027-01", "2026-53"},
		{"2027-01-03", "2027-02", "2026-53"},
		{"2021-01-01", "2021-01", "2020-53"},
		{"2022-01-01", "2022-01", "2021-52"},
		{"2022-01-02", "2022-02", "2021-52"},
	}
	for _, w := range weeks {
		d, _ := time.Parse(time.DateOnly, w.date)
		if got := Format(d, "gggg-ww"); got != w.us {
			t.Errorf("%s: US week %s, want %s", w.date, got, w.us)
		}
		if got := Format(d, "GGGG-WW"); got != w.iso {
			t.Errorf("%s: ISO week %s, want %s", w.date, got, w.iso)
		}
	}
}

func TestSettings(t *testing.T) {
	s, err := ParseSettings([]byte(`{"folder": "Journal/", "format": "YYYY/MM-MMMM/YYYY-MM-DD ddd", "template": "Templates/Daily"}`))
	if err != nil {
		t.Fatal(err)
	}
	d := time.Date(2026, 3, 9, 0, 0, 0, 0, time.Local)
	if got := s.Path(d); got != "Journal/2026/03-March/2026-03-09 Mon.md" {
		t.Errorf("path %q", got)
	}
	if got := s.TemplatePath(); got != "Templates/Daily.md" {
		t.Errorf("template %q", got)
	}
	var zero Settings
	if got := zero.Path(d); got != "2026-03-09.md" || zero.TemplatePath() != "" {
		t.Errorf("default path %q", got)
	}
	if _, err := ParseSettings([]byte(`{`)); err == nil {
		t.Error("bad JSON accepted")
	}
}

func TestParseDate(t *testing.T) {
	now := time.Date(2026, 3, 9, 22, 30, 0, 0, time.Local)
	cases := map[string]string{"": "2026-03-09", "Today": "2026-03-09", "yesterday": "2026-03-08", "tomorrow": "2026-03-10",
		"-10": "2026-02-27", "+1": "2026-03-10", "2025-12-31": "2025-12-31"}
	for in, want := range cases {
		got, err := ParseDate(in, now)
		if err != nil || got.Format(time.DateOnly) != want || got.Hour() != 0 {
			t.Errorf("ParseDate(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"next week", "2026-13-01", "+x", "-"} {
		if _, err := ParseDate(bad, now); err == nil {
			t.Errorf("ParseDate(%q): no error", bad)
		}
	}
}

func TestFill(t *testing.T) {
	s := Settings{Format: "YYYY-MM-DD"}
	date := time.Date(2026, 3, 9, 0, 0, 0, 0, time.Local)
	now := time.Date(2026, 3, 10, 8, 5, 0, 0, time.Local)
	tpl := "# {{title}}\n{{date:dddd}} at {{time}} / {{ DATE }} {{date+1d:YYYY-MM-DD}} {{date-1w}} {{time:H}}\n" +
		"<< [[{{yesterday}}]] | [[{{tomorrow}}]] >> {{other}} {{date:}} {{unclosed"
	want := "# 2026-03-09\nMonday at 08:05 / 2026-03-09 2026-03-10 2026-03-02 8\n" +
		"<< [[2026-03-08]] | [[2026-03-10]] >> {{other}}  {{unclosed"
	if got := s.Fill(tpl, date, now); got != want {
		t.Errorf("Fill:\n%s\nwant:\n%s", got, want)
	}
}

// FuzzFormat: any format string renders without panicking, and a
// template fills without losing text outside braces.
func FuzzFormat(f *testing.F) {
	for _, s := range []string{"YYYY-MM-DD", "[a]b[c", "{{date:[W]ww}} {{date+3q}} {{time-2h:HH}}", "dddd Do MMMM", "{{", "}}{{}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, layout string) {
		d := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
		_ = Format(d, layout)
		_ = Settings{Format: layout}.Path(d)
		_ = Settings{}.Fill(layout, d, d)
		if _, err := ParseDate(layout, d); err != nil && layout == "" {
			t.Fatal(err)
		}
	})
}
