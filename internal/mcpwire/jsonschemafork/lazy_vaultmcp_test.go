package jsonschema

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// compiledAtInit records, before any test runs, whether package init
// compiled the drafts' metaschemas (upstream does; this fork must not).
var compiledAtInit bool

func TestMain(m *testing.M) {
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch != nil {
			compiledAtInit = true
		}
	}
	os.Exit(m.Run())
}

func TestDraftsCompiledOnFirstUse(t *testing.T) {
	if compiledAtInit {
		t.Fatal("package init compiled the drafts' metaschemas")
	}
}

// TestDraftsCompileOnceUnderConcurrentUse has many compilers use every
// draft at once (run it with -race): each must see the metaschemas
// compiled, and reject a schema its metaschema forbids.
func TestDraftsCompileOnceUnderConcurrentUse(t *testing.T) {
	drafts := []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(drafts))
	for i := 0; i < 4; i++ {
		for _, d := range drafts {
			wg.Add(1)
			go func(d *Draft) { // go.mod says go 1.21: one d per loop
				defer wg.Done()
				errs <- compileBoth(d)
			}(d)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	for _, d := range drafts {
		if d.sch == nil {
			t.Errorf("%s: metaschema not compiled", d)
		}
		for name, sch := range d.allVocabs {
			if sch == nil {
				t.Errorf("%s: vocabulary %s not compiled", d, name)
			}
		}
	}
}

// compileBoth compiles a valid schema, which validates, and an invalid
// one (a number where the metaschema wants a type name), which must fail.
func compileBoth(d *Draft) error {
	good, err := UnmarshalJSON(strings.NewReader(`{"type": "object", "properties": {"a": {"type": "string"}}}`))
	if err != nil {
		return err
	}
	c := NewCompiler()
	c.DefaultDraft(d)
	if err := c.AddResource("good.json", good); err != nil {
		return err
	}
	sch, err := c.Compile("good.json")
	if err != nil {
		return fmt.Errorf("%s: %w", d, err)
	}
	if err := sch.Validate(map[string]any{"a": 1}); err == nil {
		return fmt.Errorf("%s: {\"a\": 1} passed a schema wanting a string", d)
	}
	bad, err := UnmarshalJSON(strings.NewReader(`{"type": 5}`))
	if err != nil {
		return err
	}
	if err := c.AddResource("bad.json", bad); err != nil {
		return err
	}
	if _, err := c.Compile("bad.json"); err == nil {
		return fmt.Errorf("%s: {\"type\": 5} compiled; the metaschema was not applied", d)
	}
	return nil
}
