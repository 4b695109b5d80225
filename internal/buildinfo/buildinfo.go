// Package buildinfo says which build of floe runs: the module version and
// the VCS revision that the go command records in every binary, or what a
// release build sets at link time.
//
// A binary installed with "go install github.com/floeid/floe/cmd/floe@v1.2.3"
// carries the module version v1.2.3 and no revision. One built with
// "go build" in a git checkout carries the revision, its commit time and
// whether the tree had uncommitted changes; its module version is
// "(devel)", or since Go 1.24 a pseudo-version naming the commit. A release
// build sets both with
//
//	go build -ldflags "-X github.com/floeid/floe/internal/buildinfo.version=v1.2.3 -X github.com/floeid/floe/internal/buildinfo.revision=$(git rev-parse HEAD)"
//
// which win over the build information.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Set at link time with -ldflags -X (see the package doc); empty leaves
// the build information's.
var (
	version  string
	revision string
)

// devel is the module version of a build from a checkout.
const devel = "(devel)"

// Info describes a build.
type Info struct {
	// Version is the module version: v1.2.3, a pseudo-version, or
	// "(devel)" when the build recorded none.
	Version string
	// Revision is the VCS revision (a full git hash); "" when unknown.
	Revision string
	// Time is the revision's commit time; zero when unknown.
	Time time.Time
	// Modified says that the working tree had uncommitted changes.
	Modified bool
	// GoVersion is the Go toolchain that built the binary.
	GoVersion string
}

// Read returns the running binary's build: the link-time values when set,
// else its build information.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(bi, version, revision)
}

// Version returns the running binary's module version (see Info.Version).
func Version() string { return Read().Version }

// Revision returns the running binary's VCS revision, "" when unknown.
func Revision() string { return Read().Revision }

// fromBuildInfo returns the Info of bi (nil when the binary has none),
// overridden by ver and rev when they are not empty.
func fromBuildInfo(bi *debug.BuildInfo, ver, rev string) Info {
	info := Info{Version: devel, GoVersion: runtime.Version()}
	if bi != nil {
		if bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time, _ = time.Parse(time.RFC3339, s.Value)
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if ver != "" {
		info.Version = ver
	}
	if rev != "" && rev != info.Revision {
		// A revision given at link time describes the release, not the
		// tree the binary happened to be built in.
		info.Revision, info.Time, info.Modified = rev, time.Time{}, false
	}
	return info
}

// String returns the build in one line, for --version and logs, e.g.
//
//	v1.2.3 (go1.26.8)
//	(devel) rev 3b95ecd4d790 2026-11-23T17:12:09Z, dirty (go1.26.8)
//	(devel), no revision recorded (go1.26.8)
func (i Info) String() string {
	var b strings.Builder
	b.WriteString(i.Version)
	switch {
	case i.Revision != "":
		b.WriteString(" rev ")
		b.WriteString(ShortRevision(i.Revision))
		if !i.Time.IsZero() {
			b.WriteString(" ")
			b.WriteString(i.Time.UTC().Format(time.RFC3339))
		}
		if i.Modified {
			b.WriteString(", dirty")
		}
	case i.Version == devel:
		// A build from a checkout without -buildvcs (or outside git):
		// nothing says which code it is.
		b.WriteString(", no revision recorded")
	}
	if i.GoVersion != "" {
		b.WriteString(" (")
		b.WriteString(i.GoVersion)
		b.WriteString(")")
	}
	return b.String()
}

// ShortRevision returns the first 12 characters of a revision, as git and
// Go's pseudo-versions abbreviate a hash.
func ShortRevision(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
