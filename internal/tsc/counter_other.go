//go:build !amd64 && !arm64

package tsc

import "runtime"

const clockSource = ""

func ticks() uint64        { return 0 }
func ticksOrdered() uint64 { return 0 }

func counterCheck() string { return "no counter is read on " + runtime.GOARCH }
