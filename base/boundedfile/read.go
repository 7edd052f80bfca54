package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the error Read returns for a path that is
// not a regular file: a directory, a named pipe, a device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is Read's error for a file of more than Max bytes.
type TooLargeError struct {
	Path string
	Max  int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes", e.Path, e.Max)
}

// NotRegularError is Read's error for a path that is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, Kind(e.Mode))
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// Kind names the type of file a mode describes, for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// Read reads the regular file at path, of at most max bytes (max > 0). It
// never reads more than max+1 bytes, so a huge file or a device such as
// /dev/zero costs nothing, and it refuses anything that is not a regular
// file before reading: the file is opened without blocking, so a named
// pipe with no writer cannot hang the caller.
func Read(path string, max int) ([]byte, error) {
	if max <= 0 {
		return nil, fmt.Errorf("boundedfile.Read %s: no limit given", path)
	}
	// Stat first: opening a FIFO or a device can itself block or have
	// effects, so only regular files are opened at all.
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The path may have been replaced between the two looks.
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	if info.Size() > int64(max) {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	return b, nil
}
