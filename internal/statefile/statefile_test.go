package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// sample is a state with two sequences, one with characters that
// encoding/json escapes.
var sample = map[string]Sequence{
	"default": {
		Definition: "id64 epoch=1288834974657 unit=1ms node=10 seq=12 worker=0",
		Reserved:   1834567891234,
		Updated:    time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
	},
	"orders": {
		Definition: `id80 <partition & "quoted"> é`,
		Reserved:   1<<64 - 1,
		Updated:    time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC),
	},
}

// mustEncode returns the file contents for seqs.
func mustEncode(seqs map[string]Sequence) []byte {
	b, err := encode(seqs)
	if err != nil {
		panic(err)
	}
	return b
}

// mustChecksum returns the checksum field for seqs.
func mustChecksum(seqs map[string]Sequence) string {
	sum, err := checksum(seqs)
	if err != nil {
		panic(err)
	}
	return sum
}

// replace returns b with the first old replaced by new, and panics if old
// is not in b, so that a table case cannot silently test a valid file.
func replace(b []byte, old, new string) []byte {
	if !bytes.Contains(b, []byte(old)) {
		panic(fmt.Sprintf("%q not in %s", old, b))
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// corruptFiles are state file contents that decode must refuse. They also
// seed FuzzDecode.
var corruptFiles = func() []struct {
	name    string
	content []byte
} {
	valid := mustEncode(sample)
	sum := mustChecksum(sample)
	emptyName := map[string]Sequence{"": sample["default"]}
	return []struct {
		name    string
		content []byte
	}{
		{"empty file", nil},
		{"only whitespace", []byte("\n \t\n")},
		{"truncated json", valid[:len(valid)/2]},
		{"last brace missing", valid[:len(valid)-2]},
		{"bad checksum", replace(valid, sum, "crc32c:00000000")},
		{"checksum in upper case", replace(valid, sum, strings.ToUpper(sum))},
		{"checksum without algorithm", replace(valid, sum, strings.TrimPrefix(sum, checksumPrefix))},
		{"missing checksum", replace(valid, `,
  "checksum": "`+sum+`"`, "")},
		{"flipped byte in reserved", replace(valid, "1834567891234", "1834567891235")},
		{"flipped byte in definition", replace(valid, "worker=0", "worker=1")},
		{"flipped byte in time", replace(valid, "12:00:00Z", "13:00:00Z")},
		{"flipped byte in a field name", replace(valid, `"reserved"`, `"reservet"`)},
		{"flipped byte in a sequence name", replace(valid, `"orders"`, `"ordert"`)},
		{"unknown version", replace(valid, `"version": 1`, `"version": 2`)},
		{"version zero", replace(valid, `"version": 1`, `"version": 0`)},
		{"missing version", replace(valid, `"version": 1,`, "")},
		{"version as string", replace(valid, `"version": 1`, `"version": "1"`)},
		{"no sequences", []byte(`{"version": 1, "checksum": "` + mustChecksum(nil) + `"}`)},
		{"null sequences", []byte(`{"version": 1, "sequences": null, "checksum": "` + mustChecksum(nil) + `"}`)},
		{"empty sequence name", mustEncode(emptyName)},
		{"unknown field", replace(valid, `"version": 1,`, `"version": 1, "extra": true,`)},
		{"data after the object", append(slices.Clone(valid), "{}"...)},
		{"two objects", append(slices.Clone(valid), valid...)},
		{"negative reserved", replace(valid, "1834567891234", "-1")},
		{"reserved above 2^64-1", replace(valid, "18446744073709551615", "18446744073709551616")},
		{"reserved as a float", replace(valid, "1834567891234", "1834567891234.5")},
		{"reserved as a string", replace(valid, "1834567891234", `"1834567891234"`)},
		{"time not rfc 3339", replace(valid, "2026-03-01T12:00:00Z", "2026-03-01 12:00:00")},
		{"json null", []byte("null")},
		{"json array", []byte("[]")},
		{"binary garbage", []byte("\x00\xff\xfe\x01floe")},
	}
}()

// equalState reports whether a and b hold the same sequences, comparing
// times with Equal.
func equalState(a, b map[string]Sequence) bool {
	return maps.EqualFunc(a, b, func(x, y Sequence) bool {
		return x.Definition == y.Definition && x.Reserved == y.Reserved && x.Updated.Equal(y.Updated)
	})
}

// open opens dir and closes it when the test ends.
func open(t testing.TB, dir string) *File {
	t.Helper()
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// names lists the directory's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	return got
}

func TestFile_RoundTrip(t *testing.T) {
	tests := []struct {
		name string
		puts map[string]Sequence
	}{
		{"no sequences", nil},
		{"one sequence", map[string]Sequence{"default": sample["default"]}},
		{"escaped characters and the largest reservation", sample},
		{"zero reservation", map[string]Sequence{"new": {Definition: "d", Updated: time.Unix(1, 0).UTC()}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			f := open(t, dir)
			if got, want := f.Path(), filepath.Join(dir, StateName); got != want {
				t.Errorf("Path() = %q, want %q", got, want)
			}
			if got := f.Sequences(); len(got) != 0 {
				t.Errorf("fresh Sequences() = %v, want none", got)
			}
			if !f.Fresh() {
				t.Error("Fresh() = false in a new directory")
			}
			for _, name := range slices.Sorted(maps.Keys(tc.puts)) {
				if err := f.Put(name, tc.puts[name]); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			f = open(t, dir)
			// Only a Put writes the file.
			if got, want := f.Fresh(), len(tc.puts) == 0; got != want {
				t.Errorf("after reopen Fresh() = %v, want %v", got, want)
			}
			if got := f.Sequences(); !equalState(got, tc.puts) {
				t.Errorf("after reopen got %v, want %v", got, tc.puts)
			}
			for name, want := range tc.puts {
				if got, ok := f.Sequence(name); !ok || !equalState(map[string]Sequence{name: got}, map[string]Sequence{name: want}) {
					t.Errorf("Sequence(%q) = %v, %v; want %v, true", name, got, ok, want)
				}
			}
			if got, ok := f.Sequence("missing"); ok {
				t.Errorf("Sequence(missing) = %v, true; want false", got)
			}
		})
	}
}

func TestFile_PutPersistsImmediately(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir)
	want := map[string]Sequence{"default": sample["default"]}
	if err := f.Put("default", sample["default"]); err != nil {
		t.Fatal(err)
	}
	// Without closing f, a copy of its state file already holds the Put.
	b, err := os.ReadFile(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	copyDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(copyDir, StateName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := open(t, copyDir).Sequences(); !equalState(got, want) {
		t.Errorf("copy holds %v, want %v", got, want)
	}
}

func TestFile_PutSetsUpdated(t *testing.T) {
	f := open(t, t.TempDir())
	before := time.Now()
	if err := f.Put("default", Sequence{Definition: "d", Reserved: 1}); err != nil {
		t.Fatal(err)
	}
	got, _ := f.Sequence("default")
	if got.Updated.Before(before.Truncate(time.Second)) || got.Updated.Location() != time.UTC {
		t.Errorf("Updated = %v, want a UTC time from %v on", got.Updated, before)
	}
	local := time.Date(2026, 3, 1, 13, 0, 0, 0, time.FixedZone("CET", 3600))
	if err := f.Put("default", Sequence{Definition: "d", Reserved: 1, Updated: local}); err != nil {
		t.Fatal(err)
	}
	got, _ = f.Sequence("default")
	if want := local.UTC(); got.Updated != want {
		t.Errorf("Updated = %v, want %v", got.Updated, want)
	}
}

func TestOpen_Corrupt(t *testing.T) {
	for _, tc := range corruptFiles {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, StateName)
			if err := os.WriteFile(path, tc.content, 0o600); err != nil {
				t.Fatal(err)
			}
			checkRefused(t, dir, path, true)
		})
	}
}

func TestOpen_Unreadable(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
	}{
		{"a directory where the file should be", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"a dangling symlink", func(t *testing.T, path string) {
			if err := os.Symlink(filepath.Join(filepath.Dir(path), "elsewhere"), path); err != nil {
				t.Skip("no symlinks:", err)
			}
		}},
		{"unreadable file mode 000", func(t *testing.T, path string) {
			if os.Geteuid() == 0 {
				t.Skip("root reads any file")
			}
			if runtime.GOOS == "windows" {
				t.Skip("no mode 000 on windows")
			}
			if err := os.WriteFile(path, mustEncode(sample), 0o000); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, StateName)
			tc.setup(t, path)
			checkRefused(t, dir, path, false)
		})
	}
}

// checkRefused checks that Open(dir) refuses the state file at path with an
// error that names it, and releases the directory's lock.
func checkRefused(t *testing.T, dir, path string, corrupt bool) {
	t.Helper()
	f, err := Open(dir)
	if err == nil {
		f.Close()
		t.Fatalf("Open = nil error, want one")
	}
	if got := errors.Is(err, ErrCorrupt); got != corrupt {
		t.Errorf("errors.Is(%v, ErrCorrupt) = %v, want %v", err, got, corrupt)
	}
	for _, want := range []string{path, "will not start from zero"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	// The refused Open released the lock: once the file is gone, the
	// directory opens.
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	open(t, dir)
}

func TestFile_PutBackwards(t *testing.T) {
	tests := []struct {
		name     string
		reserved uint64
		err      error
	}{
		{"lower", 99, ErrBackwards},
		{"zero", 0, ErrBackwards},
		{"equal", 100, nil},
		{"higher", 101, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, t.TempDir())
			if err := f.Put("a", Sequence{Definition: "d", Reserved: 100}); err != nil {
				t.Fatal(err)
			}
			before, err := os.ReadFile(f.Path())
			if err != nil {
				t.Fatal(err)
			}
			err = f.Put("a", Sequence{Definition: "d", Reserved: tc.reserved})
			if !errors.Is(err, tc.err) {
				t.Fatalf("Put(%d) = %v, want %v", tc.reserved, err, tc.err)
			}
			want := uint64(100)
			if err == nil {
				want = tc.reserved
			}
			if got, _ := f.Sequence("a"); got.Reserved != want {
				t.Errorf("Reserved = %d, want %d", got.Reserved, want)
			}
			after, _ := os.ReadFile(f.Path())
			if changed := !bytes.Equal(before, after); changed != (err == nil) {
				t.Errorf("file changed = %v, want %v", changed, err == nil)
			}
			// Another sequence is independent of a's reservation.
			if err := f.Put("b", Sequence{Definition: "d", Reserved: 1}); err != nil {
				t.Errorf("Put(b) = %v", err)
			}
		})
	}
}

func TestFile_PutEmptyName(t *testing.T) {
	f := open(t, t.TempDir())
	if err := f.Put("", Sequence{Reserved: 1}); !errors.Is(err, ErrName) {
		t.Errorf("Put(\"\") = %v, want ErrName", err)
	}
}

func TestOpen_CreatesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	open(t, dir)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm() &^ 0o077; runtime.GOOS != "windows" && got != 0o700 {
		t.Errorf("directory mode %v, want 0700 for the owner", fi.Mode())
	}
}

func TestOpen_NotADirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := Open(path); err == nil {
		f.Close()
		t.Error("Open(a file) = nil error, want one")
	}
}

func TestFile_Delete(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir)
	for _, name := range []string{"a", "b"} {
		if err := f.Put(name, Sequence{Reserved: 100}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Delete("a"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(f.Path())
	if err := f.Delete("missing"); err != nil {
		t.Errorf("Delete(missing) = %v", err)
	}
	if after, _ := os.ReadFile(f.Path()); !bytes.Equal(before, after) {
		t.Error("Delete(missing) rewrote the file")
	}
	// A deleted sequence starts over.
	if err := f.Put("a", Sequence{Reserved: 1}); err != nil {
		t.Errorf("Put after Delete = %v", err)
	}
	f.Close()
	got := open(t, dir).Sequences()
	if got, want := slices.Sorted(maps.Keys(got)), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("after reopen: %q, want %q", got, want)
	}
	if got["a"].Reserved != 1 {
		t.Errorf("a.Reserved = %d, want 1", got["a"].Reserved)
	}
}

func TestFile_Close(t *testing.T) {
	f := open(t, t.TempDir())
	if err := f.Put("a", Sequence{Reserved: 1}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := f.Close(); err != nil {
			t.Errorf("Close #%d = %v", i+1, err)
		}
	}
	if err := f.Put("a", Sequence{Reserved: 2}); !errors.Is(err, ErrClosed) {
		t.Errorf("Put after Close = %v, want ErrClosed", err)
	}
	if err := f.Delete("a"); !errors.Is(err, ErrClosed) {
		t.Errorf("Delete after Close = %v, want ErrClosed", err)
	}
	if got, ok := f.Sequence("a"); !ok || got.Reserved != 1 {
		t.Errorf("Sequence after Close = %v, %v; want the last state", got, ok)
	}
}

// TestFile_ConcurrentPuts runs writers, each raising its own sequence, next
// to readers that check that no reservation they see ever goes down.
func TestFile_ConcurrentPuts(t *testing.T) {
	const writers, puts = 4, 20
	dir := t.TempDir()
	f := open(t, dir)
	done := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			seen := map[string]uint64{}
			for {
				for name, s := range f.Sequences() {
					if s.Reserved < seen[name] {
						t.Errorf("%s went from %d to %d", name, seen[name], s.Reserved)
					}
					seen[name] = s.Reserved
				}
				select {
				case <-done:
					return
				default:
				}
			}
		})
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			name := fmt.Sprint("seq", w)
			for i := range puts {
				if err := f.Put(name, Sequence{Definition: name, Reserved: uint64(i + 1)}); err != nil {
					t.Error(err)
					return
				}
				if s, ok := f.Sequence(name); !ok || s.Reserved < uint64(i+1) {
					t.Errorf("%s: Sequence = %v, %v after Put(%d)", name, s, ok, i+1)
				}
			}
		})
	}
	wg.Wait()
	close(done)
	readers.Wait()
	f.Close()
	got := open(t, dir).Sequences()
	for w := range writers {
		name := fmt.Sprint("seq", w)
		if got[name].Reserved != puts {
			t.Errorf("%s.Reserved = %d, want %d", name, got[name].Reserved, puts)
		}
	}
}

func BenchmarkFile_Put(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprint("sequences=", n), func(b *testing.B) {
			f := open(b, b.TempDir())
			for i := range n {
				if err := f.Put(fmt.Sprint("seq", i), Sequence{Definition: sample["default"].Definition}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			var r uint64
			for b.Loop() {
				r++
				if err := f.Put("seq0", Sequence{Definition: sample["default"].Definition, Reserved: r}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOpen_CreatedDirDurable checks that the writes in a directory Open
// created wait for the fsync of its parent, and fail with its error (which
// they can only return once it has returned).
func TestOpen_CreatedDirDurable(t *testing.T) {
	errSync := errors.New("fsync failed")
	tests := []struct {
		name    string
		exists  bool  // the directory exists before Open
		syncErr error // the parent's fsync's
		wantErr error // Put's
		syncs   int   // fsyncs of the parent
	}{
		{name: "new directory", syncs: 1},
		{name: "new directory, its parent's fsync fails", syncErr: errSync, wantErr: errSync, syncs: 1},
		{name: "existing directory", exists: true, syncErr: errSync},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "state")
			if tt.exists {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			var syncs []string // written by Open's goroutine, read after Put and Close
			syncParent = func(d string) error {
				syncs = append(syncs, d)
				return tt.syncErr
			}
			defer func() { syncParent = syncDir }()
			f, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Put("a", Sequence{Definition: "id64", Reserved: 1}); !errors.Is(err, tt.wantErr) {
				t.Errorf("Put: got %v, want %v", err, tt.wantErr)
			}
			if err := f.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if len(syncs) != tt.syncs || tt.syncs > 0 && syncs[0] != parent {
				t.Errorf("the parent's fsyncs: got %q, want %d of %s", syncs, tt.syncs, parent)
			}
			if _, ok := f.Sequence("a"); ok != (tt.wantErr == nil) {
				t.Errorf("after Put's %v, the sequence is recorded: %v", tt.wantErr, ok)
			}
		})
	}
}
