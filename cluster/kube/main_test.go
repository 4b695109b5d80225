//go:build unix

package kube_test

import (
	"os"
	"testing"

	"github.com/floeid/floe/cluster/floedproc"
)

// bin is the floed binary the tests ask for its defaults and run.
var bin string

func TestMain(m *testing.M) { os.Exit(floedproc.Main(m, &bin)) }
