package mcpserver

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestBaseResource: a .base file is a resource, listed and read as YAML
// text.
func TestBaseResource(t *testing.T) {
	const base = "views:\n  - type: table\n    name: All\n"
	r := newRig(t, map[string]string{"Projects.base": base, "a.md": "x\n"})
	cn := r.connect("2025-11-25")
	_, _, byURI := listAll(t, cn)
	if got, ok := byURI["vault:///Projects.base"]; !ok || got.MIMEType != "text/yaml" {
		t.Errorf("Projects.base listed as %+v (%v)", got, ok)
	}
	res, err := readResource(t, cn, "vault:///Projects.base")
	if err != nil {
		t.Fatal(err)
	}
	c, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok || c.MIMEType != "text/yaml" || c.Text != base {
		t.Errorf("read: %+v", res.Contents)
	}
}
