package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"vaultmcp/internal/tokens"
	"vaultmcp/internal/vaultgen"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// The link budgets (docs/performance.md), from the scenario they answer:
// get_backlinks of a note with 1,776 backlinks in 5 ms, its answer under
// 25k tokens (estimated as the server pages them, internal/tokens, which
// errs high), and get_broken_links of 1,395 broken names in 3 ms.
const (
	backlinksBudget       = 5 * time.Millisecond
	backlinksAnswerTokens = 25_000
	brokenBudget          = 3 * time.Millisecond
)

// hubLinks is how many notes link to the generated vaults' popular note
// (vaultgen.HubNote), beside the handful its uniform links give it; the
// rename rows rename it.
const hubLinks = 1800

// extraBrokenNames widens the generated vaults' broken link names from
// the 1,000 the uniform links draw from (a 10,000-note vault names about
// 970 of them) to about 1,400 at 10,000 notes (vaultgen.Options).
const extraBrokenNames = 425

// hasHub says whether the generated vault v has its popular note (generate
// gives it one when it has at least 100+hubLinks notes).
func hasHub(v *vaultgen.Vault) bool { return len(v.Paths) >= 100+hubLinks }

// noHub is the row printed instead of the popular note's figures in a
// vault too small to have one.
func noHub(label string) figure {
	return figure{name: "get_backlinks of the popular note" + label, text: "skipped",
		note: fmt.Sprintf("(the vault needs %d notes for it: --notes)", 100+hubLinks)}
}

// popularTyped times, in process on ix (the index of v, opened as vlt), the typed
// functions get_backlinks and get_broken_links run, on their default
// pages: get_backlinks of v's popular note, checked to count at least
// hubLinks backlinks, and get_broken_links, with the broken names the
// vault has. The popular note's backlinks must count want (0: at least
// hubLinks); the count is returned.
func popularTyped(ctx context.Context, v *vaultgen.Vault, vlt *vault.Vault, ix *index.Index, want int, label string) ([]figure, int, error) {
	d := tools.Deps{Vault: vlt, Index: ix, Logger: slog.New(slog.DiscardHandler)}
	var figs []figure
	count := 0
	if hasHub(v) {
		args := tools.BacklinksArgs{NoteName: v.Name(vaultgen.HubNote)}
		res, err := tools.Backlinks(ctx, d, args)
		if err != nil {
			return nil, 0, err
		}
		if count = res.BacklinkCount; !wanted(count, want) {
			return nil, 0, fmt.Errorf("get_backlinks of %s counts %d backlinks, want %d (at least %d)", args.NoteName, count, want, hubLinks)
		}
		dur, err := timeIt(50, func() error { _, err := tools.Backlinks(ctx, d, args); return err })
		if err != nil {
			return nil, 0, err
		}
		figs = append(figs, figure{name: fmt.Sprintf("get_backlinks, %d backlinks, default page (typed, warm)", count) + label,
			got: dur, budget: backlinksBudget})
	} else {
		figs = append(figs, noHub(label))
	}

	broken, err := ix.Broken(ctx)
	if err != nil {
		return figs, 0, err
	}
	names := map[string]bool{}
	for _, b := range broken {
		for _, t := range b.Targets {
			names[t] = true
		}
	}
	dur, err := timeIt(50, func() error { _, err := tools.BrokenLinks(ctx, d, tools.BrokenArgs{}); return err })
	if err != nil {
		return figs, 0, err
	}
	figs = append(figs, figure{name: "get_broken_links default page (typed, warm)" + label, got: dur, budget: brokenBudget,
		note: fmt.Sprintf("(%d broken names in %d notes)", len(names), len(broken))})
	return figs, count, nil
}

// popularCall times get_backlinks of v's popular note as a tool call on
// the running server s, on its default page, and gives the size of the
// answer's text: what a client reads, held to backlinksAnswerTokens. The
// answer must count want backlinks (0: at least hubLinks); the count is
// returned.
func popularCall(ctx context.Context, s *server, v *vaultgen.Vault, want int, label string) ([]figure, int, error) {
	if !hasHub(v) {
		return []figure{noHub(label)}, 0, nil
	}
	args := map[string]any{"note_name": v.Name(vaultgen.HubNote)}
	out, err := s.call(ctx, "get_backlinks", args)
	if err != nil {
		return nil, 0, err
	}
	var answer struct {
		Count     int               `json:"backlink_count"`
		Backlinks []json.RawMessage `json:"backlinks"`
	}
	if err := json.Unmarshal([]byte(out), &answer); err != nil {
		return nil, 0, fmt.Errorf("get_backlinks answered %.200q: %w", out, err)
	}
	if !wanted(answer.Count, want) {
		return nil, 0, fmt.Errorf("get_backlinks of %s counts %d backlinks as a tool call, want %d (at least %d)", args["note_name"], answer.Count, want, hubLinks)
	}
	d, err := timeIt(30, func() error { _, err := s.call(ctx, "get_backlinks", args); return err })
	if err != nil {
		return nil, 0, err
	}
	return []figure{
		{name: fmt.Sprintf("get_backlinks, %d backlinks, default page (tool call, warm)", answer.Count) + label, got: d, budget: backlinksBudget},
		{name: "  its answer (text), estimated tokens" + label, text: fmt.Sprintf("%d", tokens.Estimate(out)), budgetText: fmt.Sprintf("≤ %d", backlinksAnswerTokens),
			over: tokens.Estimate(out) > backlinksAnswerTokens, note: fmt.Sprintf("(%d of %d notes; %s)", len(answer.Backlinks), answer.Count, fmtBytes(len(out)))},
	}, answer.Count, nil
}

// wanted says whether a backlink count of the popular note is the one
// wanted: want itself, or at least hubLinks when want is 0.
func wanted(count, want int) bool {
	if want == 0 {
		return count >= hubLinks
	}
	return count == want
}

// fmtBytes writes n bytes with thousands separated: "23,456 B".
func fmtBytes(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " B"
}
