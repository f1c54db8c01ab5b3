package httpserver

import (
	"net/http"
	"strconv"
	"strings"

	"vaultmcp/internal/audit"
	"vaultmcp/tools"
)

// canvasRoutes are the canvas endpoints: GET /api/canvas/{path} is
// read_canvas (offset and limit in the query), POST /api/canvas/{path}
// is edit_canvas (the body holds its changes), with If-Match and
// Idempotency-Key as for PUT /api/notes.
func (s *Server) canvasRoutes() map[string]route {
	if s.opts.Deps.Vault == nil {
		return nil
	}
	return map[string]route{"/api/canvas/": {http.HandlerFunc(s.canvas), []string{http.MethodGet, http.MethodPost}}}
}

// canvasEdit is POST /api/canvas/{path}'s body: edit_canvas' arguments
// but the path.
type canvasEdit struct {
	AddNodes    []map[string]any `json:"add_nodes"`
	UpdateNodes []map[string]any `json:"update_nodes"`
	RemoveNodes []string         `json:"remove_nodes"`
	AddEdges    []map[string]any `json:"add_edges"`
	UpdateEdges []map[string]any `json:"update_edges"`
	RemoveEdges []string         `json:"remove_edges"`
}

func (s *Server) canvas(w http.ResponseWriter, r *http.Request) {
	p, _ := strings.CutPrefix(r.URL.Path, "/api/canvas/")
	if p == "" {
		detail(w, http.StatusBadRequest, "Name a canvas: /api/canvas/{path}, e.g. /api/canvas/Boards/Plan.canvas")
		return
	}
	audit.NotePaths(r.Context(), p)
	switch key := r.Header.Get("Idempotency-Key"); {
	case r.Method == http.MethodGet:
		s.readCanvas(w, r, p)
	case key != "" && s.opts.Deps.Idempotency != nil:
		s.writeOnce(w, r, p, key, s.editCanvas)
	default:
		s.editCanvas(w, r, p)
	}
}

// readCanvas answers GET /api/canvas/{path}, with the canvas's version
// as its ETag.
func (s *Server) readCanvas(w http.ResponseWriter, r *http.Request, p string) {
	a := tools.ReadCanvasArgs{Path: p}
	q := r.URL.Query()
	for _, param := range []struct {
		name string
		min  int
		set  func(int)
	}{{"offset", 0, func(n int) { a.Offset = n }}, {"limit", 1, func(n int) { a.Limit = &n }}} {
		v := q.Get(param.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < param.min || n > tools.MaxPageLimit {
			detail(w, http.StatusBadRequest, "Query parameter "+param.name+" must be a whole number from "+strconv.Itoa(param.min)+" to "+strconv.Itoa(tools.MaxPageLimit))
			return
		}
		param.set(n)
	}
	res, err := tools.ReadCanvasOf(r.Context(), s.opts.Deps, a)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("ETag", strconv.Quote(res.Version))
	writeJSON(w, http.StatusOK, res)
}

// editCanvas answers POST /api/canvas/{path}.
func (s *Server) editCanvas(w http.ResponseWriter, r *http.Request, p string) {
	ctx, ok := precondition(w, r)
	if !ok {
		return
	}
	var body canvasEdit
	if !decode(w, r, &body) {
		return
	}
	res, err := tools.EditCanvasOf(ctx, s.opts.Deps, tools.EditCanvasArgs{Path: p, AddNodes: body.AddNodes, UpdateNodes: body.UpdateNodes,
		RemoveNodes: body.RemoveNodes, AddEdges: body.AddEdges, UpdateEdges: body.UpdateEdges, RemoveEdges: body.RemoveEdges})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("ETag", strconv.Quote(res.Version))
	writeJSON(w, http.StatusOK, res)
}
