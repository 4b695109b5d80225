package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/floeid/floe/id64"
)

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
