package schedtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// TestMark_SlowdownUnderLoad runs a busy loop here beside three busy
// processes a CPU: the loop's thread can run no more than about a
// quarter of the time, so the slowdown of the window is well above 1.5 on
// any machine. The load must come from other processes: Go runs no more
// threads at once than GOMAXPROCS, and its own queue is not the kernel's.
func TestMark_SlowdownUnderLoad(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc: the slowdown is always 1")
	}
	hogs := 3 * runtime.NumCPU()
	for range hogs {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
	}
	m := Now()
	for start := time.Now(); time.Since(start) < 500*time.Millisecond; {
	}
	got := m.Slowdown()
	t.Logf("slowdown %.2f beside %d busy processes", got, hogs)
	if got < 1.5 {
		t.Errorf("Slowdown() = %.2f beside %d busy processes on %d CPUs, want at least 1.5", got, hogs, runtime.NumCPU())
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
