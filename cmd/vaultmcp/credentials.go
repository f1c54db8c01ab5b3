package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"vaultmcp/internal/auth"
)

// hashPassword reads one password from stdin (its first line) and prints
// its bcrypt hash for http.users.
func hashPassword(stdin io.Reader, stdout, stderr io.Writer) error {
	fmt.Fprintln(stderr, "Password (one line on stdin):")
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read password: %w", err)
	}
	pw := strings.TrimRight(line, "\r\n")
	hash, err := auth.HashPassword([]byte(pw))
	if err != nil {
		return fmt.Errorf("hash-password: %w", err)
	}
	fmt.Fprintln(stdout, hash)
	return nil
}

// tokenName is compiled on first use, not at every start: its bounded
// repetition compiles to a large program (most of this package's init).
var tokenName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
})

// tokenCommand runs `token create NAME`: a new API token, printed once,
// and the config entry that holds only its hash.
func tokenCommand(args []string, stdout io.Writer) error {
	if len(args) != 2 || args[0] != "create" {
		return errors.New("usage: vaultmcp token create NAME")
	}
	name := args[1]
	if !tokenName().MatchString(name) {
		return fmt.Errorf("token name %q: use letters, digits, '.', '_' and '-' (at most 64)", name)
	}
	tok, hash, err := auth.NewToken()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, `Token (shown once; give it to the client as "Authorization: Bearer <token>"):

  %s

Add this entry to http.tokens in vaultmcp.yaml (it holds only the token's hash):

http:
  tokens:
    - name: %s
      hash: %s
      # read_only: true        # refuse every change
      # allow: [Journal]       # only these folders
      # deny: [Private]        # never these folders
`, tok, name, hash)
	return nil
}
