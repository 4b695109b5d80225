package redistest

import (
	"testing"

	"github.com/floeid/floe/internal/skiptest"
)

func TestLookPath_NoRedisServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	skiptest.Check(t, redisServer, func(tb testing.TB) { lookPath(tb) }, []skiptest.Case{
		{Name: "skips with a notice", WantSkip: true, WantNotice: "SKIPPING the tests that need Redis"},
		{Name: "fails under CI", CI: "true"},
	})
}
