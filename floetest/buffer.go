package floetest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer for writers and readers in different
// goroutines: a subprocess's output, or a logger's, that a test reads while
// it is written.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer // guarded by mu
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
