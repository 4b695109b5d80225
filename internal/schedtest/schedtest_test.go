package schedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestReadSchedstat(t *testing.T) {
	tests := []struct {
		name, text string
		want       counts
		wantOK     bool
	}{
		{"three fields", "7918719 17978208 4\n", counts{7918719, 17978208}, true},
		{"zeros", "0 0 0\n", counts{}, true},
		{"one field", "12\n", counts{}, false},
		{"not a number", "x 1 2\n", counts{}, false},
		{"empty", "", counts{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "schedstat")
			if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, ok := readSchedstat(p)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("readSchedstat(%q) = %v, %v; want %v, %v", tt.text, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestMark_SlowdownUnderLoad runs three busy threads a CPU, each on an
// OS thread of its own: none can run more than a third of the time, so
// the slowdown of the window is well above 1.5 on any machine.
func TestMark_SlowdownUnderLoad(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc: the slowdown is always 1")
	}
	m := Now()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 3 * runtime.NumCPU() {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for !stop.Load() {
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if got := m.Slowdown(); got < 1.5 {
		t.Errorf("Slowdown() = %.2f under %d busy threads on %d CPUs, want at least 1.5", got, 3*runtime.NumCPU(), runtime.NumCPU())
	}
	if got, bound := m.Scale(time.Second), time.Duration(1.5*float64(time.Second)); got < bound {
		t.Errorf("Scale(1s) = %v, want at least %v", got, bound)
	}
}

func TestMark_Within(t *testing.T) {
	m := Now()
	if ok, bound := m.Within(time.Second, 2*time.Second); !ok || bound != 2*time.Second {
		t.Errorf("Within(1s, 2s) = %v, %v; want true, 2s", ok, bound)
	}
	if ok, _ := m.Within(time.Hour, time.Second); ok {
		t.Errorf("Within(1h, 1s) = true: a slowdown is at most %d", MaxSlowdown)
	}
}
