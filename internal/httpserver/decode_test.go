package httpserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	type paging struct {
		Offset int `json:"offset"`
	}
	type body struct {
		Name  string `json:"name"`
		Limit int    `json:"limit,omitempty"`
		Skip  bool   `json:"-"`
		paging
	}
	tests := []struct {
		name, ct, body string
		ok             bool
		status         int
		detail         string
	}{
		{"plain", "application/json", `{"name":"a","limit":3}`, true, 200, ""},
		{"no content type", "", `{"name":"a"}`, true, 200, ""},
		{"charset", "application/json; charset=utf-8", `{"name":"a"}`, true, 200, ""},
		{"form", "application/x-www-form-urlencoded", `name=a`, false, 415, "Send the body as JSON"},
		{"not json", "application/json", `{name:a}`, false, 400, "The body is not valid JSON"},
		{"wrong type", "application/json", `{"limit":"3"}`, false, 400, `Field "limit" must be a number`},
		{"unknown field", "application/json", `{"nam":"a"}`, false, 400, `Unknown field "nam"; this endpoint takes "name", "limit", "offset"`},
		{"not an object", "application/json", `[]`, false, 400, "The body must be a JSON object"},
		{"fraction", "application/json", `{"limit":1.5}`, false, 400, `Field "limit" must be a whole number in range, not 1.5`},
		{"too large", "application/json", `{"limit":1e20}`, false, 400, `Field "limit" must be a whole number in range, not 1e20`},
		{"embedded field", "application/json", `{"offset":"2"}`, false, 400, `Field "offset" must be a number`},
		{"embedded too large", "application/json", `{"offset":1e20}`, false, 400, `Field "offset" must be a whole number in range, not 1e20`},
		{"dash field", "application/json", `{"Skip":true}`, false, 400, `Unknown field "Skip"`},
		{"two values", "application/json", `{"name":"a"} {"name":"b"}`, false, 400, "The body must be one JSON object; more follows it"},
		{"trailing space", "application/json", "{\"name\":\"a\"}\n  ", true, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/api/x", strings.NewReader(tt.body))
			if tt.ct != "" {
				r.Header.Set("Content-Type", tt.ct)
			}
			w := httptest.NewRecorder()
			var b body
			if got := decode(w, r, &b); got != tt.ok {
				t.Fatalf("decode = %v, want %v (%s)", got, tt.ok, w.Body)
			}
			var answer struct{ Detail string }
			if !tt.ok {
				if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil {
					t.Fatalf("answer %s: %v", w.Body, err)
				}
			}
			if w.Code != tt.status || !strings.HasPrefix(answer.Detail, tt.detail) {
				t.Errorf("answer %d %q, want %d with %q", w.Code, answer.Detail, tt.status, tt.detail)
			}
		})
	}
}
