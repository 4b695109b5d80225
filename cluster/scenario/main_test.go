//go:build unix

package scenario_test

import (
	"os"
	"testing"

	"github.com/floeid/floe/cluster/floedproc"
)

// bin is the floed binary the scenarios run.
var bin string

func TestMain(m *testing.M) { os.Exit(floedproc.Main(m, &bin)) }
