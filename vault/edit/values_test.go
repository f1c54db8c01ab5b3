package edit

import (
	"encoding/json"
	"testing"
)

func TestDecodeObject(t *testing.T) {
	obj, err := DecodeObject([]byte(`{"z": 1, "a": {"y": [true, null, "s"], "b": 2.5}, "m": []}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(obj)
	if err != nil || string(out) != `{"z":1,"a":{"y":[true,null,"s"],"b":2.5},"m":[]}` {
		t.Fatalf("%s %v", out, err)
	}
	for _, bad := range []string{`[1]`, `{"a":`, `{} {}`, `"x"`, ``} {
		if _, err := DecodeObject([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
