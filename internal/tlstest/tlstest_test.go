package tlstest

import (
	"encoding/pem"
	"errors"
	"os"
	"testing"
)

// BadFiles are a file without PEM and a path without a file.
func TestBadFiles(t *testing.T) {
	notPEM, missing := BadFiles(t)
	b, err := os.ReadFile(notPEM)
	if err != nil {
		t.Fatal(err)
	}
	if block, _ := pem.Decode(b); block != nil {
		t.Errorf("%s holds a PEM block %q", notPEM, block.Type)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stat %s: %v, want no such file", missing, err)
	}
}
