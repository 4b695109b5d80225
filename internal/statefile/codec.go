package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"
)

// version is the format version this package writes and the only one it
// reads.
const version = 1

// checksumPrefix names the checksum's algorithm in the file, so that a
// later version can change it and a reader can tell.
const checksumPrefix = "crc32c:"

// castagnoli returns the CRC-32C table, built at the first checksum and
// read-only after. It is the plain table of hash/crc32, made here:
// crc32.MakeTable(crc32.Castagnoli) also builds the tables of its SSE4.2
// path, a tenth of a millisecond of every start for a file of a few hundred
// bytes.
var castagnoli = sync.OnceValue(func() *crc32.Table {
	t := new(crc32.Table)
	for i := range t {
		crc := uint32(i)
		for range 8 {
			if crc&1 == 1 {
				crc = crc>>1 ^ crc32.Castagnoli
			} else {
				crc >>= 1
			}
		}
		t[i] = crc
	}
	return t
})

// document is the file's JSON object. Field order is the order written.
type document struct {
	Version   int                 `json:"version"`
	Sequences map[string]Sequence `json:"sequences"`
	Checksum  string              `json:"checksum"`
}

// checksum returns the checksum field for seqs: CRC-32C over the compact
// encoding/json encoding of the map (keys sorted), in lower-case hex.
func checksum(seqs map[string]Sequence) (string, error) {
	canonical, err := json.Marshal(seqs)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s%08x", checksumPrefix, crc32.Checksum(canonical, castagnoli())), nil
}

// encode returns the file contents for seqs: indented JSON ending in a
// newline. A nil map is written as an empty one.
func encode(seqs map[string]Sequence) ([]byte, error) {
	if seqs == nil {
		seqs = map[string]Sequence{}
	}
	sum, err := checksum(seqs)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(document{Version: version, Sequences: seqs, Checksum: sum}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// decode parses file contents. It accepts exactly what encode writes, up to
// JSON whitespace and key order, and returns an error saying what is wrong
// otherwise (the caller wraps it with ErrCorrupt and the path). The map it
// returns is never nil.
func decode(b []byte) (map[string]Sequence, error) {
	if len(b) == 0 {
		return nil, errors.New("the file is empty (0 bytes)")
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("the file holds only whitespace (%d bytes)", len(b))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var doc document
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("the JSON ends early (a truncated file?): %v", err)
		}
		return nil, fmt.Errorf("not a valid state file: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a valid state file: data after the JSON object")
	}
	if doc.Version != version {
		return nil, fmt.Errorf("unknown format version %d (this floed reads version %d)", doc.Version, version)
	}
	if doc.Sequences == nil {
		return nil, errors.New(`no "sequences" object`)
	}
	if _, ok := doc.Sequences[""]; ok {
		return nil, errors.New("a sequence with an empty name")
	}
	sum, err := checksum(doc.Sequences)
	if err != nil {
		return nil, fmt.Errorf("cannot re-encode the sequences: %v", err)
	}
	if doc.Checksum != sum {
		return nil, fmt.Errorf("checksum mismatch: the file says %q, its sequences give %q (a torn write or a damaged disk?)", doc.Checksum, sum)
	}
	return doc.Sequences, nil
}
