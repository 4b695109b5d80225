package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/floeid/floe/id64"
)

// layoutUsage says what a -layout flag takes.
const layoutUsage = `a preset: twitter, icicle (icicle 1.x), icicle2 (icicle 2.x), instagram, discord, redisgen or snowcast-N; ` +
	`or a layout written out, such as "41t/10w/12s 1ms since 2016-02-18" (bits of time, datacenter, worker and sequence, tick unit, ` +
	`epoch as RFC 3339, date or Unix ms, then "unsigned" if the IDs may use the top bit)`

// parseLayoutFlag reads the value of the layout flag named flag, as
// id64.ParseLayout does, and names the flag in its error.
func parseLayoutFlag(flag, value string) (id64.Layout, error) {
	l, err := id64.ParseLayout(value)
	if err != nil {
		return id64.Layout{}, fmt.Errorf("%s: %w", flag, err)
	}
	return l, nil
}

// layoutLabel is how output names a layout given as value: a preset by its
// name, any other layout as its text, quoted.
func layoutLabel(value string, l id64.Layout) string {
	if !strings.Contains(value, "/") {
		return value
	}
	return strconv.Quote(l.String())
}
