package bases

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// benchBase is the budgeted query: a property filter and a tag filter,
// two formulas (one using the other), a sort on a formula.
const benchBase = `filters:
  and:
    - 'status == "open"'
    - file.hasTag("project")
formulas:
  score: 'priority * 2 + 1'
  label: 'file.basename + " " + formula.score'
views:
  - type: table
    name: Open projects
    order: [file.name, status, formula.score, formula.label]
    sort:
      - property: formula.score
        direction: DESC
`

// benchFiles makes n notes as a generated vault's: a third open, half
// tagged project.
func benchFiles(n int) []*File {
	statuses := []string{"open", "done", "waiting"}
	tags := [][]string{{"project"}, {"idea", "area/home"}, {"project/sub", "review"}, {"journal"}}
	files := make([]*File, n)
	for i := range files {
		files[i] = &File{
			Path: fmt.Sprintf("area-%02d/Note %05d.md", i%20, i), Size: 2000, MTime: time.Unix(int64(1_700_000_000+i), 0),
			Props: *props("title", fmt.Sprintf("Note %05d", i), "status", statuses[i%3], "priority", i%7, "due", "2026-01-15"),
			Tags:  tags[i%4],
		}
	}
	return files
}

// BenchmarkQueryBase runs the budgeted query (5 ms at 10,000 notes) over
// notes already converted, as the index's source keeps them.
func BenchmarkQueryBase(b *testing.B) {
	src := newMemSource(benchFiles(10_000)...)
	// As the index's source: columns made once, kept between queries.
	src.columnar = true
	cached := &cachedColumns{memSource: src, cols: map[string][]Value{}, tagged: map[string][]bool{}}
	base, err := Parse([]byte(benchBase))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		q, err := Compile(base, "")
		if err != nil {
			b.Fatal(err)
		}
		res, err := q.Run(ctx, cached, Options{Limit: 50})
		if err != nil {
			b.Fatal(err)
		}
		if res.Total != 1667 {
			b.Fatalf("%d rows", res.Total)
		}
	}
}

// cachedColumns keeps a memSource's columns, as the index's source keeps
// them for a generation.
type cachedColumns struct {
	*memSource
	cols   map[string][]Value
	tagged map[string][]bool
}

func (c *cachedColumns) Column(name string) []Value {
	if col, ok := c.cols[name]; ok {
		return col
	}
	c.cols[name] = c.memSource.Column(name)
	return c.cols[name]
}

func (c *cachedColumns) Tagged(tag string) []bool {
	if t, ok := c.tagged[tag]; ok {
		return t
	}
	c.tagged[tag] = c.memSource.Tagged(tag)
	return c.tagged[tag]
}
