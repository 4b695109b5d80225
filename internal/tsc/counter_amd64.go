package tsc

// clockSource is the kernel's name for the counter as its clock source.
const clockSource = "tsc"

func ticks() uint64
func ticksOrdered() uint64
func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// counterCheck reports why the time-stamp counter cannot be trusted to
// run at a constant rate in every processor state, or "".
func counterCheck() string {
	if top, _, _, _ := cpuid(0x80000000, 0); top < 0x80000007 {
		return "CPUID has no power-management leaf"
	}
	if _, _, _, d := cpuid(0x80000007, 0); d&(1<<8) == 0 {
		return "CPUID reports no invariant time-stamp counter"
	}
	return ""
}
