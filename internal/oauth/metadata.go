package oauth

import "net/http"

// metadata serves RFC 8414 authorization server metadata.
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "use GET")
		return
	}
	base := s.opts.Base(r)
	authMethods := []string{"none", "client_secret_post", "client_secret_basic"}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         base,
		"authorization_endpoint":                         base + AuthorizePath,
		"token_endpoint":                                 base + TokenPath,
		"registration_endpoint":                          base + RegisterPath,
		"revocation_endpoint":                            base + RevokePath,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          authMethods,
		"revocation_endpoint_auth_methods_supported":     authMethods,
		"scopes_supported":                               []string{ScopeRead, ScopeWrite, OfflineAccess},
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
	})
}
