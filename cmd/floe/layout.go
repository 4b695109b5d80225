package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/floeid/floe/id64"
)

// layoutByName returns the id64 layout a flag names: twitter, icicle,
// instagram, discord or snowcast-N (N nodes, 128..8192).
func layoutByName(name string) (id64.Layout, error) {
	switch name {
	case "twitter", "noeq", "":
		return id64.Twitter, nil
	case "icicle":
		return id64.Icicle, nil
	case "instagram":
		return id64.Instagram, nil
	case "discord":
		return id64.Discord, nil
	}
	if n, ok := strings.CutPrefix(name, "snowcast-"); ok {
		nodes, err := strconv.Atoi(n)
		if err != nil {
			return id64.Layout{}, fmt.Errorf("layout %q: node count %q is not a number", name, n)
		}
		return id64.Snowcast(nodes)
	}
	return id64.Layout{}, fmt.Errorf("unknown layout %q (want twitter, icicle, instagram, discord or snowcast-N)", name)
}
