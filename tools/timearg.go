package tools

import (
	"time"

	"vaultmcp/internal/when"
	"vaultmcp/vault"
)

// timeForms is the brief reference to the time forms (package when,
// docs/dates.md) that every tool taking a time puts in its description.
const timeForms = "a date (2024-05-01, its first moment), date-time (2024-05-01T14:30, optionally with Z or +02:00), today, yesterday, or a span back from now (90m, 7d, 2w, \"2 weeks ago\")"

// parseTimeArg reads the time argument named what ("" is no time: the
// zero time) as every tool does, relative forms counting back from now.
func parseTimeArg(what, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := when.Parse(s, now)
	if err != nil {
		return time.Time{}, &vault.Error{Kind: vault.ErrInvalidInput, Msg: what + ": " + err.Error()}
	}
	return t, nil
}
