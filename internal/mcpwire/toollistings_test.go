package mcpwire

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/tools"
)

// TestToolListings checks that toolListings holds every tool of a server
// mcpserver.New assembles (ListedTools) as the tool's MarshalJSON encodes it
// (TestToolListAnswersAsMCPGo checks the whole answer against mcp-go's);
// with -update it rewrites the table.
func TestToolListings(t *testing.T) {
	listed, _, err := ListedTools(tools.All(fullDeps(t)))
	if err != nil {
		t.Fatal(err)
	}
	var want []toolListingEntry
	for _, st := range listed {
		b, err := st.Tool.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, toolListingEntry{st.Tool.Name, st.Tool.Description, string(st.Tool.RawInputSchema), string(b)})
	}
	slices.SortFunc(want, func(a, b toolListingEntry) int { return strings.Compare(a.name, b.name) })
	checkGenerated(t, "toollistings_gen.go", "TestToolListings", toolListingsSource(want))
}

// A tool whose description or input schema is not the one its entry was
// made from is encoded afresh, not listed from the entry.
func TestGeneratedListingMismatch(t *testing.T) {
	e := toolListings[0]
	tool := mcp.Tool{Name: e.name, Description: e.description, RawInputSchema: []byte(e.inputSchema)}
	tests := []struct {
		name   string
		change func(*mcp.Tool)
		want   bool
	}{
		{"as made", func(*mcp.Tool) {}, true},
		{"another description", func(t *mcp.Tool) { t.Description += " (changed)" }, false},
		{"another input schema", func(t *mcp.Tool) { t.RawInputSchema = []byte(`{"type":"object"}`) }, false},
		{"an unknown tool", func(t *mcp.Tool) { t.Name = "no_such_tool" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := tool
			tt.change(&changed)
			listing, ok := generatedListing(changed)
			if ok != tt.want || ok && listing != e.listing {
				t.Errorf("generatedListing = %t, want %t", ok, tt.want)
			}
		})
	}
}

// toolListingsSource is the body of toollistings_gen.go holding entries.
func toolListingsSource(entries []toolListingEntry) []byte {
	var b bytes.Buffer
	b.WriteString("// toolListings holds each tool's encoding in tools/list, with the\n// description and input schema it was made from, sorted by tool name\n// (see generatedListing).\nvar toolListings = [...]toolListingEntry{\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "\t{%s, %s, %s, %s},\n", strconv.Quote(e.name), quoteRaw(e.description), quoteRaw(e.inputSchema), quoteRaw(e.listing))
	}
	b.WriteString("}\n")
	return b.Bytes()
}
