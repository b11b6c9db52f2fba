package audit

import (
	"os"
	"sync"
)

// File is an audit log file that can be reopened by name, so that it can
// be rotated: after the file is renamed (logrotate, `mv audit.log
// audit.log.1`), Reopen creates a new file at the path and the lines
// written from then on go there. A line is written whole to one file or
// the other, never split and never lost.
type File struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

// OpenFile opens path for appending, creating it (mode 0600) if needed.
func OpenFile(path string) (*File, error) {
	f, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	return &File{path: path, f: f}, nil
}

func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}

// Path is the file's name.
func (f *File) Path() string { return f.path }

// Write appends b to the file open now.
func (f *File) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.f.Write(b)
}

// Reopen opens the path again (creating the file if it was moved away)
// and writes there from now on. If the path cannot be opened the file
// open until now stays in use, and the error says why.
func (f *File) Reopen() error {
	nf, err := openAppend(f.path)
	if err != nil {
		return err
	}
	f.mu.Lock()
	old := f.f
	f.f = nf
	f.mu.Unlock()
	return old.Close()
}

// Close closes the file.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.f.Close()
}
