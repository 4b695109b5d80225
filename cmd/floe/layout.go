package main

import "github.com/floeid/floe/id64"

// layoutByName returns the id64 layout a flag names: twitter, icicle,
// instagram, discord or snowcast-N (N nodes, 128..8192).
func layoutByName(name string) (id64.Layout, error) { return id64.LayoutByName(name) }
