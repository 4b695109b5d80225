package main

import (
	"time"

	"github.com/floeid/floe/internal/schedtest"
)

// stretchDurations returns args with each -d stretched by the slowdown
// schedtest measured since m: a run for a duration must complete a
// request within it, which takes longer on a loaded machine; on an idle
// one the -d is as written. Other arguments are kept.
func stretchDurations(m schedtest.Mark, args []string) []string {
	out := append([]string(nil), args...)
	for i := 1; i < len(out); i++ {
		if out[i-1] != "-d" {
			continue
		}
		if d, err := time.ParseDuration(out[i]); err == nil {
			out[i] = m.Scale(d).Round(time.Millisecond).String()
		}
	}
	return out
}
