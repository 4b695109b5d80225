// Package tsc reads the process's monotonic clock cheaply where the
// processor's counter is the kernel's own clock source, and exactly
// everywhere else.
//
// # Where the counter is used
//
// Now reads the counter only on Linux, on amd64 where the kernel's current
// clock source is "tsc" and CPUID reports an invariant time-stamp counter
// (leaf 0x80000007, EDX bit 8, from which the kernel derives its
// constant_tsc and nonstop_tsc flags), and on arm64 where it is
// "arch_sys_counter" (the virtual counter). The kernel's monotonic clock is
// then itself a linear function of the same counter, so a linear
// conversion, kept close to the kernel's by re-anchoring, tracks it. The
// first reading calibrates the conversion against the monotonic clock over
// about 0.3 ms and refuses the counter if the rates of two halves disagree,
// the frequency is implausible, or the counter is slower to read than the
// monotonic clock (a hypervisor that traps it). Everywhere else, and after
// any failed check, Now is Precise.
//
// # The bound
//
// A reading from the counter lies within Bound (4 µs) of the monotonic
// clock read at the same instant, and readings never decrease. The code
// enforces this as follows:
//
//   - An anchor (a counter value, its time, a rate) serves only the next
//     Period (16 µs) of counter time. The first reader past it re-anchors,
//     under a mutex, against a fresh monotonic reading bracketed by
//     counter reads; nothing depends on a background goroutine.
//   - Each re-anchor measures the anchor's error at that point. An error
//     above Bound turns the counter off for the rest of the process: a
//     clock-source change, counters out of step between processors, or a
//     jump is caught within one Period. What the kernel may legitimately
//     do to its clock in between (slewing its rate by up to 10%) moves the
//     two apart by at most a tenth of a Period, 1.6 µs.
//   - A new anchor starts no lower than the most the old one could have
//     served, so readings never decrease; when that puts it ahead of the
//     monotonic clock, it runs slower for one Period to close the gap
//     (slewing) instead of stepping back.
//   - The rate comes from a baseline of at least 50 ms and may not change by
//     more than an eighth between baselines.
//   - After the counter is turned off, readings come from the monotonic
//     clock but never below the most the counter could have served.
//
// An anchor reads the counter (with LFENCE; RDTSC on amd64, as the kernel
// does) between two monotonic readings at most 200 ns apart, and takes the
// later one as its time: readings then lead the monotonic clock by up to
// that much rather than lag it. Now reads the counter without a fence: a
// reading may be taken a few hundred cycles before the instructions around
// it, far inside Bound.
//
// Clock users with ticks shorter than 25 Bounds (100 µs) should read
// Precise: Bound is then no longer small next to a tick.
package tsc
