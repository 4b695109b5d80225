package tsc

// clockSource is the kernel's name for the counter as its clock source.
const clockSource = "arch_sys_counter"

func ticks() uint64
func ticksOrdered() uint64

// counterCheck reports why the virtual counter cannot be used, or "": the
// architecture guarantees that it runs at a constant rate.
func counterCheck() string { return "" }
