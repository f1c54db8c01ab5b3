package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"vaultmcp/internal/audit"
	"vaultmcp/internal/config"
	"vaultmcp/internal/oauth"
)

const oauthUsage = `Usage:
  vaultmcp oauth list [--config FILE]                the connected OAuth clients and their grants
  vaultmcp oauth revoke CLIENT_ID [--config FILE]    sign a client out and forget its registration
  vaultmcp oauth revoke --user NAME [--config FILE]  sign out every client a user let in

They read the configuration as serve does (--config, VAULTMCP_CONFIG, the
default locations) to find http.oauth.state_file. A running server refuses
a revoked client's tokens within seconds.
`

// oauthCommand runs `vaultmcp oauth list|revoke`.
func oauthCommand(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "list" && args[0] != "revoke") {
		fmt.Fprint(stderr, oauthUsage)
		return errors.New("usage: vaultmcp oauth list|revoke")
	}
	sub := args[0]
	fs := pflag.NewFlagSet("vaultmcp oauth "+sub, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	config.Flags(fs)
	user := ""
	if sub == "revoke" {
		fs.StringVar(&user, "user", "", "revoke every grant of this user")
	}
	fs.Usage = func() { fmt.Fprint(stderr, oauthUsage) }
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return err
	}
	cfg, err := config.Load(fs)
	if err != nil {
		return err
	}
	file := cfg.HTTP.OAuth.StateFile
	if file == "" {
		if file, err = oauth.DefaultStateFile(); err != nil {
			return err
		}
	}
	rest := fs.Args()
	switch {
	case sub == "list" && len(rest) == 0:
		return oauthList(file, stdout)
	case sub == "revoke" && user != "" && len(rest) == 0:
		n, err := oauth.RevokeUser(file, user)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Revoked %d grant(s) of the user %s.\n", n, user)
		return auditRevocation(cfg, "user:"+user, "")
	case sub == "revoke" && user == "" && len(rest) == 1:
		n, err := oauth.RevokeClient(file, rest[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Revoked the client %s and its %d grant(s); it must register and sign in again.\n", rest[0], n)
		return auditRevocation(cfg, "", rest[0])
	default:
		fmt.Fprint(stderr, oauthUsage)
		return fmt.Errorf("usage: vaultmcp oauth %s", map[string]string{"list": "list", "revoke": "revoke CLIENT_ID | --user NAME"}[sub])
	}
}

func oauthList(file string, stdout io.Writer) error {
	clients, err := oauth.List(file)
	if err != nil {
		return err
	}
	if len(clients) == 0 {
		fmt.Fprintf(stdout, "No OAuth client has connected (%s).\n", file)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tNAME\tUSER\tSCOPES\tLAST USED\tREDIRECT HOSTS")
	for _, c := range clients {
		hosts := printable(strings.Join(c.RedirectHosts, ", "))
		name := printable(c.Name)
		if len(c.Grants) == 0 {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t%s\t%s\n", printable(c.ID), name, when(c.LastUsed), hosts)
		}
		for _, g := range c.Grants {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", printable(c.ID), name, printable(g.User), strings.Join(g.Scopes, " "), when(g.LastUsed), hosts)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%d client(s), from %s\n", len(clients), file)
	return nil
}

// printable shows a name a client chose as text, never as terminal
// control: anything not plainly visible is quoted with escapes.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsGraphic(r) || r == '\t' }) < 0 {
		return s
	}
	return strconv.QuoteToGraphic(s)
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// auditRevocation records a revocation made here in the server's audit
// log, when it keeps one.
func auditRevocation(cfg *config.Config, user, client string) error {
	if cfg.HTTP.AuditLog == "" {
		return nil
	}
	l, err := audit.Open(cfg.HTTP.AuditLog, audit.Options{})
	if err != nil {
		return err
	}
	defer l.Close()
	id := "cli"
	if user != "" {
		id = "cli:" + user
	}
	return l.Write(audit.Entry{Time: time.Now(), Identity: id, Method: "CLI", Endpoint: "vaultmcp oauth revoke", Event: "oauth.revoke", Client: client})
}
