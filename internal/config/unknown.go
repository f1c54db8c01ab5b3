package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"vaultmcp/internal/editdist"
)

// unknownKeys turns the keys the decoding left unused into an error that
// names each one and the key it was probably meant to be. A misspelt key
// is never harmless here: `vault.pth` would serve the default vault
// instead of the one named, and `read_ony: true` under an http.tokens
// entry would hand out a token that can write. file is the config file
// read ("" if none), named in the message because that is where the key
// almost always comes from (the environment only reaches known keys, or
// the entries of a list given as YAML).
func unknownKeys(unused []string, file string) error {
	if len(unused) == 0 {
		return nil
	}
	slices.Sort(unused)
	known := knownKeys(reflect.TypeFor[Config](), "")
	var errs []error
	for _, key := range unused {
		msg := fmt.Sprintf("unknown setting %s", key)
		if s := suggestKey(key, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		errs = append(errs, errors.New(msg))
	}
	where := "config"
	if file != "" {
		where = "config file " + file
	}
	return fmt.Errorf("%s: %w", where, errors.Join(errs...))
}

// knownKeys lists every key Config reads, sections included, with "[]"
// standing for the index of a list entry (http.tokens[].read_only).
func knownKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for f := range t.Fields() {
		name := f.Tag.Get("mapstructure")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		key := prefix + name
		keys = append(keys, key)
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct && ft.PkgPath() == t.PkgPath():
			keys = append(keys, knownKeys(ft, key+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			keys = append(keys, knownKeys(ft.Elem(), key+"[].")...)
		}
	}
	return keys
}

// withoutIndexes writes "[]" for every list index mapstructure puts into
// the key of a list entry's field (http.tokens[0].name).
func withoutIndexes(key string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(key, '[')
		if open < 0 {
			b.WriteString(key)
			return b.String()
		}
		end := strings.IndexByte(key[open:], ']')
		if end < 0 {
			b.WriteString(key)
			return b.String()
		}
		b.WriteString(key[:open+1])
		key = key[open+end:]
	}
}

// suggestKey returns the known key in the same section as key whose last
// part is nearest to key's, or "" when none is near: at most two edits,
// and fewer than half of the name, so `x` does not suggest `tls_key`.
// The suggestion keeps key's own list index.
func suggestKey(key string, known []string) string {
	generic := withoutIndexes(key)
	cut := strings.LastIndex(generic, ".") + 1
	section, name := generic[:cut], generic[cut:]
	limit := min(2, (len([]rune(name))-1)/2)
	best, bestDist := "", limit+1
	for _, k := range known {
		rest, ok := strings.CutPrefix(k, section)
		if !ok || strings.ContainsAny(rest, ".[") {
			continue
		}
		if d := editdist.Within(name, rest, limit); d < bestDist {
			best, bestDist = rest, d
		}
	}
	if best == "" {
		return ""
	}
	return key[:strings.LastIndex(key, ".")+1] + best
}
