package statefile_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/floeid/floe/internal/statefile"
)

func Example() {
	dir, err := os.MkdirTemp("", "floed")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// A fresh directory: no state file, no sequences.
	f, err := statefile.Open(filepath.Join(dir, "state"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(f.Sequences()), "sequences")

	// Record a reservation; Put returns once it is on disk.
	err = f.Put("default", statefile.Sequence{
		Definition: "id64 epoch=1288834974657 unit=1ms node=10 seq=12 worker=0",
		Reserved:   1834567891234,
		Updated:    time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
	})
	if err != nil {
		log.Fatal(err)
	}
	b, err := os.ReadFile(f.Path())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(b))

	// A reservation never goes down.
	s, _ := f.Sequence("default")
	s.Reserved--
	fmt.Println(f.Put("default", s))
	f.Close()

	// A restarted daemon reads it back and starts above it.
	f, err = statefile.Open(filepath.Join(dir, "state"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	s, ok := f.Sequence("default")
	fmt.Println(ok, s.Reserved)
	// Output:
	// 0 sequences
	// {
	//   "version": 1,
	//   "sequences": {
	//     "default": {
	//       "definition": "id64 epoch=1288834974657 unit=1ms node=10 seq=12 worker=0",
	//       "reserved": 1834567891234,
	//       "updated": "2026-03-01T12:00:00Z"
	//     }
	//   },
	//   "checksum": "crc32c:ba855c6e"
	// }
	// floe: reservation would go backwards: sequence "default": 1834567891233 is below the recorded 1834567891234
	// true 1834567891234
}
