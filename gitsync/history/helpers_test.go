package history

import (
	"fmt"
	"strings"
)

// noteLines is a note of n numbered lines.
func noteLines(n int, name string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", name, i)
	}
	return b.String()
}
