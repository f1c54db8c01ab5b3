package httpserver

import (
	"net/http"

	"vaultmcp/tools"
)

// baseRoutes are the Bases endpoints: POST /api/bases/query takes
// query_base's arguments as a JSON body and answers its structured
// result, through the same typed function as the tool.
func (s *Server) baseRoutes() map[string]route {
	if s.opts.Deps.Index == nil || s.opts.Deps.Vault == nil {
		return nil
	}
	return map[string]route{
		"/api/bases/query": {conceptPost(s, tools.QueryBase), []string{http.MethodPost}},
	}
}
