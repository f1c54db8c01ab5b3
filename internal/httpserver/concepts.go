package httpserver

import (
	"context"
	"errors"
	"net/http"
	"time"

	"vaultmcp/tools"
	"vaultmcp/vault"
)

// defaultIndexWait bounds how long a concept endpoint waits for the
// index to finish loading before answering 503 (Options.IndexWait).
const defaultIndexWait = 10 * time.Second

// conceptRoutes are the concept endpoints: the same typed functions as the
// get_concept, expand_context, search_concepts and get_statistics tools,
// answering their documented shapes.
func (s *Server) conceptRoutes() map[string]route {
	if s.opts.Deps.Index == nil || s.opts.Deps.Vault == nil {
		return nil
	}
	return map[string]route{
		"/api/concept":        {conceptPost(s, tools.Concept), []string{http.MethodPost}},
		"/api/context/expand": {conceptPost(s, tools.ExpandConcept), []string{http.MethodPost}},
		"/api/search":         {conceptPost(s, tools.FindConcepts), []string{http.MethodPost}},
		"/api/statistics": {http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.conceptAnswer(w, r, func(ctx context.Context) (any, error) {
				return tools.Statistics(ctx, s.opts.Deps, tools.GetStatisticsArgs{})
			})
		}), []string{http.MethodGet}},
	}
}

// conceptPost decodes the body into A and answers fn's result.
func conceptPost[A, R any](s *Server, fn func(context.Context, tools.Deps, A) (*R, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a A
		if !decode(w, r, &a) {
			return
		}
		s.conceptAnswer(w, r, func(ctx context.Context) (any, error) { return fn(ctx, s.opts.Deps, a) })
	})
}

// conceptAnswer runs a concept function, waiting a bounded time for the
// index, and maps its errors onto the API's statuses.
func (s *Server) conceptAnswer(w http.ResponseWriter, r *http.Request, fn func(context.Context) (any, error)) {
	limit := s.opts.IndexWait
	if limit <= 0 {
		limit = defaultIndexWait
	}
	wait, cancel := context.WithTimeout(r.Context(), limit)
	err := s.opts.Deps.Index.Wait(wait)
	cancel()
	if err != nil {
		if r.Context().Err() == nil {
			w.Header().Set("Retry-After", "10")
			detail(w, http.StatusServiceUnavailable, "The server is still loading the vault; try again in a few seconds")
		}
		return
	}
	res, err := fn(r.Context())
	var nf *tools.ConceptNotFoundError
	var amb *tools.AmbiguousConceptError
	switch {
	case errors.As(err, &nf):
		writeJSON(w, http.StatusNotFound, map[string]any{"detail": nf.Error(), "available_count": nf.Available, "suggestions": nf.Suggestions})
	case errors.As(err, &amb):
		writeJSON(w, http.StatusConflict, map[string]any{"detail": amb.Error(), "candidates": amb.Paths})
	case errors.Is(err, vault.ErrInvalidInput):
		detail(w, http.StatusBadRequest, err.Error())
	case err != nil:
		s.fail(w, r, err)
	default:
		writeJSON(w, http.StatusOK, res)
	}
}
