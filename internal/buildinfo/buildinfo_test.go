package buildinfo

import (
	"runtime/debug"
	"testing"
	"time"
)

func TestFromBuildInfo(t *testing.T) {
	const rev = "3b95ecd4d790d83ab4ff38d34d49ccc8a8e54064"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "-buildmode", Value: "exe"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-11-23T17:12:09Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	tests := []struct {
		name     string
		bi       *debug.BuildInfo
		ver, rev string // link-time values
		want     string
	}{
		{"no build information", nil, "", "", "(devel), no revision recorded (go1.26.8)"},
		{"a checkout without vcs stamping", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "", "", "(devel), no revision recorded (go1.26.8)"},
		{"go install at a version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}}, "", "", "v1.2.3 (go1.26.8)"},
		{"a clean checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "", "",
			"(devel) rev 3b95ecd4d790 2026-11-23T17:12:09Z (go1.26.8)"},
		{"a dirty checkout with a pseudo-version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261123171209-3b95ecd4d790+dirty"}, Settings: vcs("true")}, "", "",
			"v0.0.0-20261123171209-3b95ecd4d790+dirty rev 3b95ecd4d790 2026-11-23T17:12:09Z, dirty (go1.26.8)"},
		{"a release build over a checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "v1.4.0", "", "v1.4.0 rev 3b95ecd4d790 2026-11-23T17:12:09Z (go1.26.8)"},
		{"a release build with its revision", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "v1.4.0", "0123456789abcdef0123", "v1.4.0 rev 0123456789ab (go1.26.8)"},
		{"a release revision over another checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Settings: vcs("true")}, "v1.4.0", "0123456789abcdef0123", "v1.4.0 rev 0123456789ab (go1.26.8)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info := fromBuildInfo(tc.bi, tc.ver, tc.rev)
			if tc.bi == nil {
				info.GoVersion = "go1.26.8" // the running toolchain's otherwise
			}
			if got := info.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFromBuildInfo_Fields(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	got := fromBuildInfo(bi, "", "")
	want := Info{Version: "(devel)", Revision: "abc", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Modified: true, GoVersion: got.GoVersion}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
