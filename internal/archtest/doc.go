// Package archtest holds the test of the import rules docs/architecture.md
// describes: which of the module's packages each package may import. It
// has no code of its own.
package archtest
