package oauth

import (
	"crypto/sha256"
	"errors"
	"net/http"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// revoke is token revocation (RFC 7009). Revoking a refresh token or an
// access token ends the grant it belongs to, and with it every token of
// that grant: a client that lets go of one no longer holds the others.
// The answer is 200 whether or not the token was known, as the RFC asks,
// so the endpoint tells nothing about tokens it does not own.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	if !s.clientForm(w, r) {
		return
	}
	c, err := s.authenticateClient(r)
	if err != nil {
		var te *tokenError
		errors.As(err, &te)
		writeError(w, te.status, te.code, te.desc)
		return
	}
	tok := r.PostForm.Get("token")
	if tok == "" {
		writeError(w, http.StatusBadRequest, "invalid_request", "token is required")
		return
	}
	grant := s.grantOf(tok)
	if grant != "" {
		var revoked bool
		err := s.state.update(func(st *State) error {
			// Only the client a grant belongs to may end it.
			if g := st.Grants[grant]; g != nil && g.ClientID == c.ID {
				delete(st.Grants, grant)
				revoked = true
			}
			return nil
		})
		if err != nil {
			s.log.Error("oauth: revocation", "err", err)
			writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the revocation could not be saved; try again")
			return
		}
		if revoked {
			audited(r, "oauth-client:"+c.ID, "oauth.revoke", c.ID)
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// grantOf finds the grant a token belongs to: a refresh token by its
// hash, an access token by the grant it names once its signature holds.
func (s *Server) grantOf(tok string) string {
	var id string
	s.state.view(func(*State) {
		if g, _ := s.state.grantByRefresh(sha256.Sum256([]byte(tok))); g != nil {
			id = g.ID
		}
	})
	if id != "" || strings.Count(tok, ".") != 2 {
		return id
	}
	var keys []SigningKey
	s.state.view(func(st *State) { keys = st.Keys })
	var claims accessClaims
	// An expired token still names its grant: revoking it is harmless.
	_, err := jwt.ParseWithClaims(tok, &claims, signingKey(keys), jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithoutClaimsValidation())
	if err != nil {
		return ""
	}
	return claims.GrantID
}
