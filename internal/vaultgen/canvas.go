package vaultgen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Canvas is a board as Obsidian saves one: 100 file cards showing notes
// of paths and 100 text cards linking to them by name, tab-indented.
// With shows, one of each names hub. seed picks which notes it shows.
func Canvas(paths []string, seed int, hub string, shows bool) []byte {
	var nodes []string
	for j := range 100 {
		p := paths[(seed*100+j*37)%len(paths)]
		if shows && j == 50 {
			p = hub
		}
		name := strings.TrimSuffix(filepath.Base(p), ".md")
		nodes = append(nodes,
			fmt.Sprintf(`{"id":"f%015x","type":"file","file":%q,"x":%d,"y":0,"width":400,"height":400}`, seed*1000+j, p, j*500),
			fmt.Sprintf(`{"id":"t%015x","type":"text","text":%q,"x":%d,"y":500,"width":250,"height":60}`, seed*1000+j, "About [["+name+"]] and more.", j*500))
	}
	return []byte("{\n\t\"nodes\":[\n\t\t" + strings.Join(nodes, ",\n\t\t") + "\n\t],\n\t\"edges\":[]\n}\n")
}

// WriteCanvases writes n boards (Canvas) named "board NNN.canvas" into
// dir; every fifth shows hub.
func WriteCanvases(dir string, paths []string, hub string, n int) error {
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("board %03d.canvas", i))
		if err := os.WriteFile(name, Canvas(paths, i, hub, i%5 == 0), 0o644); err != nil {
			return fmt.Errorf("canvas: %w", err)
		}
	}
	return nil
}
