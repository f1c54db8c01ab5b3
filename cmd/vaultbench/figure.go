package main

import (
	"fmt"
	"time"
)

// figure is one measured number, with its budget and a baseline tool doing
// the same work in the same run. Either the duration fields or the byte
// fields are used.
type figure struct {
	name     string
	got      time.Duration
	budget   time.Duration // 0: no budget
	baseName string        // e.g. "rg", "git add && git commit"; "" for none
	base     time.Duration
	// minRatio, when set, is the budget as a speed-up over the baseline
	// (the budget's "≥ 3× faster than ripgrep").
	minRatio float64

	gotBytes, budgetBytes uint64 // for memory figures

	// text and budgetText, when set, are printed as they are (counts,
	// rates), with over marking the figure over budget; note follows.
	text, budgetText, note string
	over                   bool
}

func printHeader() {
	fmt.Printf("%-52s %12s %12s  %s\n", "operation", "vaultmcp", "budget", "baseline (same run)")
}

func (f figure) print() {
	got, budget, verdict := f.format()
	line := fmt.Sprintf("%-52s %12s %12s", f.name, got, budget)
	if f.note != "" {
		line += "  " + f.note
	}
	if f.baseName != "" {
		ratio := ""
		if f.got > 0 && f.base > 0 {
			ratio = fmt.Sprintf(" (%.1fx)", float64(f.base)/float64(f.got))
		}
		line += fmt.Sprintf("  %s: %s%s", f.baseName, fmtDuration(f.base), ratio)
	}
	fmt.Println(line + verdict)
}

func (f figure) format() (got, budget, verdict string) {
	if f.text != "" {
		if f.over {
			verdict = "  OVER BUDGET"
		}
		return f.text, f.budgetText, verdict
	}
	if f.gotBytes > 0 || f.budgetBytes > 0 {
		got = fmt.Sprintf("%.1f MB", float64(f.gotBytes)/(1<<20))
		if f.budgetBytes > 0 {
			budget = fmt.Sprintf("≤ %.0f MB", float64(f.budgetBytes)/(1<<20))
			if f.gotBytes > f.budgetBytes {
				verdict = "  OVER BUDGET"
			}
		}
		return got, budget, verdict
	}
	got = fmtDuration(f.got)
	if f.minRatio > 0 {
		budget = fmt.Sprintf("≥ %.0fx %s", f.minRatio, f.baseName)
		if f.got > 0 && float64(f.base)/float64(f.got) < f.minRatio {
			verdict = "  OVER BUDGET"
		}
		return got, budget, verdict
	}
	if f.budget > 0 {
		budget = "≤ " + fmtDuration(f.budget)
		if f.got > f.budget {
			verdict = "  OVER BUDGET"
		}
	}
	return got, budget, verdict
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	}
}
