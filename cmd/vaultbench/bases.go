package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/bases/indexsource"
	"vaultmcp/vault/index"
)

// basesBudget is query_base's budget, warm, at 10,000 notes.
const basesBudget = 5 * time.Millisecond

// benchBase is the budgeted base: a filter on a property and on a tag,
// two formulas (one using the other), a sort on a formula.
const benchBase = `filters:
  and:
    - 'rating >= 1'
    - file.hasTag("project")
formulas:
  score: 'rating * 10 + file.size / 1000'
  label: 'title + " (" + formula.score.round(1) + ")"'
views:
  - type: table
    name: Rated projects
    order: [file.name, rating, formula.score, formula.label]
    sort:
      - property: formula.score
        direction: DESC
`

// benchBases measures query_base in process, through the typed function
// the tool and the REST endpoint run: the first query, which converts
// every note for the engine, and the warm one, against the budget.
func benchBases(ctx context.Context, e *env) ([]figure, error) {
	v, err := vault.Open(e.vault.Dir, vault.Options{})
	if err != nil {
		return nil, err
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(ctx); err != nil {
		return nil, err
	}
	d := tools.Deps{Vault: v, Index: ix, Bases: indexsource.New(ix, v.Root(), nil), Logger: slog.New(slog.DiscardHandler)}
	query := func() (int, error) {
		r, err := tools.QueryBase(ctx, d, tools.QueryBaseArgs{Base: benchBase})
		if err != nil {
			return 0, err
		}
		return r.Total, nil
	}
	start := time.Now()
	n, err := query()
	if err != nil {
		return nil, err
	}
	cold := time.Since(start)
	if n == 0 {
		return nil, fmt.Errorf("query_base: nothing matched")
	}
	warm, err := timeIt(50, func() error { _, err := query(); return err })
	if err != nil {
		return nil, err
	}
	return []figure{
		{name: fmt.Sprintf("query_base first query, converting %d notes", e.notes), got: cold},
		{name: fmt.Sprintf("query_base property + tag filter, 2 formulas, sort (typed, warm; %d rows)", n), got: warm, budget: basesBudget},
	}, nil
}
