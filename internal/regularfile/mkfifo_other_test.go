//go:build !unix

package regularfile

func mkfifo(string) error { return nil }
