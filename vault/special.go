package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"vaultmcp/internal/regularfile"
)

// specialTypes are the kinds of directory entries the server never opens:
// opening a FIFO blocks until a writer comes, reading a device or a socket
// never ends or has side effects. A FIFO named x.md in the vault must not
// hang a scan, a read or a commit.
const specialTypes = fs.ModeNamedPipe | fs.ModeSocket | fs.ModeDevice | fs.ModeCharDevice | fs.ModeIrregular

// IsSpecial reports whether a file mode (or a DirEntry's Type) is a FIFO,
// a socket, a device node or another irregular file: something that is
// neither a folder, a regular file nor a symbolic link. Scans leave such
// entries out and nothing ever opens them.
func IsSpecial(m fs.FileMode) bool { return m&specialTypes != 0 }

// describeSpecial names the kind of a special file for a client.
func describeSpecial(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device node"
	}
	return "not a regular file"
}

// notRegularError is the client-facing error for a path naming something
// that is neither a regular file nor a folder.
func notRegularError(given string, m fs.FileMode) *Error {
	if IsSpecial(m) {
		return newError(ErrInvalidInput, given, "%s is %s, not a regular file; the server never opens such files", given, describeSpecial(m))
	}
	return newError(ErrInvalidInput, given, "Not a regular file: %s", given)
}

// errNotRegular is returned by OpenRegular for anything but a regular
// file.
type errNotRegular struct{ mode fs.FileMode }

func (e errNotRegular) Error() string {
	if IsSpecial(e.mode) {
		return "is " + describeSpecial(e.mode) + ", not a regular file"
	}
	return fmt.Sprintf("not a regular file (mode %v)", e.mode)
}

// OpenRegular opens abs for reading if, and only if, it is a regular file
// (a final symbolic link is followed). The open itself cannot block: a
// FIFO swapped in after the caller's stat opens at once (non-blocking)
// and is then refused, unread.
func OpenRegular(abs string) (*os.File, fs.FileInfo, error) {
	f, fi, err := regularfile.Open(abs)
	var nr *regularfile.NotRegularError
	if errors.As(err, &nr) {
		// The vault's own error, which names the kind for a client.
		return nil, nil, &fs.PathError{Op: "open", Path: abs, Err: errNotRegular{nr.Mode}}
	}
	return f, fi, err
}
