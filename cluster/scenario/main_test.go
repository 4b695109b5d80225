//go:build unix

package scenario_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/floeid/floe/cluster/floedproc"
)

// bin is the floed binary the scenarios run.
var bin string

func TestMain(m *testing.M) {
	b, cleanup, err := floedproc.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = b
	code := m.Run()
	cleanup()
	os.Exit(code)
}
