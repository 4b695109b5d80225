package tlsfile

// FileError is a PEM file that could not be used: unreadable, without the
// PEM blocks it should hold, or a key that does not match its
// certificate.
type FileError struct {
	Path string // the file
	Err  error
}

func (e *FileError) Error() string { return "tlsfile: " + e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }
