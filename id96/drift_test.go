package id96

import (
	"testing"
	"time"
)

func TestDriftFor(t *testing.T) {
	// The tolerances and codes of guid's driftInBits.
	tests := []struct {
		name      string
		tolerance time.Duration
		want      Drift
	}{
		{"negative", -time.Second, 1},
		{"zero", 0, 1},
		{"30 seconds", 30 * time.Second, 1},
		{"68 seconds", 68 * time.Second, 1},
		{"just above 68 seconds", 68*time.Second + 1, 2},
		{"137 seconds", 137 * time.Second, 2},
		{"274 seconds", 274 * time.Second, 3},
		{"five minutes", 5 * time.Minute, 4},
		{"549 seconds", 549 * time.Second, 4},
		{"1099 seconds", 1099 * time.Second, 5},
		{"2199 seconds", 2199 * time.Second, 6},
		{"2200 seconds", 2200 * time.Second, 7},
		{"a day", 24 * time.Hour, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DriftFor(tt.tolerance); got != tt.want {
				t.Errorf("DriftFor(%v) = %d, want %d", tt.tolerance, got, tt.want)
			}
		})
	}
}

func TestDrift_Window(t *testing.T) {
	tests := []struct {
		name  string
		drift Drift
		want  time.Duration
	}{
		{"code 0", 0, 1 << 35},
		{"code 1", 1, 1 << 36},
		{"default", DefaultDrift, 1 << 38},
		{"code 7", MaxDrift, 1 << 42},
		{"above max", MaxDrift + 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.drift.Window(); got != tt.want {
				t.Errorf("Window() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDrift_WindowCoversTolerance checks that the code DriftFor picks has a
// window at least as wide as the tolerance, to the whole second, up to code 7.
func TestDrift_WindowCoversTolerance(t *testing.T) {
	for s := 1; s <= 4398; s++ {
		tol := time.Duration(s) * time.Second
		if got := DriftFor(tol).Window(); got.Truncate(time.Second) < tol {
			t.Fatalf("DriftFor(%v).Window() = %v", tol, got)
		}
	}
}
