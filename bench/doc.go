// Package bench holds floe's side-by-side benchmarks and its compatibility
// tests against the libraries whose formats floe reads and writes.
//
// It is a module of its own (github.com/floeid/floe/bench), so that floe
// itself stays free of third-party dependencies: only this module requires
// the peers.
//
//   - github.com/muyo/sno: id80 is bit- and text-compatible with it
//     (compat_sno_test.go);
//   - github.com/fogfish/guid/v2: id96 is bit- and text-compatible with its
//     96-bit IDs and its 64-bit cast (compat_guid_test.go);
//   - github.com/bwmarrin/snowflake: id64.Twitter reads and writes its IDs
//     (compat_snowflake_test.go);
//   - github.com/google/uuid and github.com/gofrs/uuid/v5: id128's IDs are
//     their version-7 UUIDs, and id128 reads theirs (compat_uuid_test.go,
//     BenchmarkUUIDv7); id128.ParseUUID reads the time of their versions
//     1, 2, 6 and 7 as they do (compat_uuidtime_test.go);
//   - github.com/sony/sonyflake (v1) and github.com/sony/sonyflake/v2:
//     id64.Sonyflake, and v2's other widths and units written out, read
//     and write their IDs (compat_sonyflake_test.go); Hazelcast's flake IDs
//     are checked against the formula of its Java source
//     (compat_hazelcast_test.go);
//   - github.com/sony/sonyflake/v2, github.com/rs/xid,
//     github.com/google/uuid, github.com/oklog/ulid/v2 and
//     github.com/segmentio/ksuid: benchmarked next to floe (bench_test.go).
//
// # Compatibility
//
// The compatibility tests write IDs with one library and read them with the
// other, in both directions, and compare every field, the text and the
// bytes:
//
//	cd bench && go test ./...
//
// # Benchmarks
//
// Benchmarks come in pairs, floe next to a peer on the same layout, each
// with a serial and a parallel sub-benchmark. Compare runs with benchstat
// (golang.org/x/perf/cmd/benchstat):
//
//	cd bench
//	go test -run '^$' -bench . -benchmem -count 6 | tee new.txt
//	benchstat new.txt
//	benchstat old.txt new.txt
//
// The saturation benchmarks (BenchmarkSaturate) issue IDs for one second of
// wall time per iteration and report what fraction of the format's capacity
// they reached; run them once each:
//
//	go test -run '^$' -bench Saturate -benchtime 1x
//
// README.md has the results of one run and the ratios the project tracks.
package bench
