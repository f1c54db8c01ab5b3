package pattern

import (
	"fmt"
	"regexp/syntax"
)

// CheckProgram refuses a parsed regular expression that would compile to
// more than MaxProgram instructions; what names the argument in the
// message. It estimates the size from the tree, from above, without
// expanding a repeat, so the check costs microseconds however large the
// counts: compiling the expression first to measure it would be the very
// cost it guards against.
func CheckProgram(what string, re *syntax.Regexp) error {
	if n := Program(re); n > MaxProgram {
		return &Error{Msg: fmt.Sprintf("%s is too large once compiled: about %s instructions; the limit is %s (lower its {n} repeat counts, or split the search)",
			what, Group(n), Group(MaxProgram))}
	}
	return nil
}

// Program estimates, from above, how many instructions re compiles to
// (len(prog.Inst) of syntax.Compile(re.Simplify())), as Go's regexp
// compiles it: a repeat x{n,m} becomes m copies of x, each optional one
// with a branch. The estimate stops growing at about 1<<40.
func Program(re *syntax.Regexp) int {
	return int(min(size(re), ceiling) + 2) // the entry's fail and the final match
}

// ceiling keeps the sums and products of size far from overflow.
const ceiling = 1 << 40

func size(re *syntax.Regexp) int64 {
	var n int64
	switch re.Op {
	case syntax.OpLiteral:
		n = max(int64(len(re.Rune)), 1)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			n += size(sub)
		}
		n = max(n, 1)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			n += size(sub) + 1
		}
	case syntax.OpCapture:
		n = size(re.Sub[0]) + 2
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		// Two: a star of what may match empty compiles as (x+)?.
		n = size(re.Sub[0]) + 2
	case syntax.OpRepeat:
		count := int64(re.Max)
		if re.Max < 0 {
			count = int64(re.Min) + 1
		}
		n = max(count, 1)*(size(re.Sub[0])+1) + 1
	default: // a class, an anchor, an empty match
		n = 1
	}
	return min(n, ceiling)
}
