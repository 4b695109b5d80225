package tsc

import (
	"os"
	"strings"
)

// currentClockSource is where Linux names the clock source it reads time
// from.
const currentClockSource = "/sys/devices/system/clocksource/clocksource0/current_clocksource"

// usable reports why the counter cannot serve readings here, or "".
func usable() string {
	if why := counterCheck(); why != "" {
		return why
	}
	b, err := os.ReadFile(currentClockSource)
	if err != nil {
		return "cannot read the kernel's clock source: " + err.Error()
	}
	if cs := strings.TrimSpace(string(b)); cs != clockSource {
		return "the kernel's clock source is " + cs + ", not " + clockSource
	}
	if !cheaper() {
		return "the counter is slower to read than the monotonic clock"
	}
	return ""
}
