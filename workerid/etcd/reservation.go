package etcd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// reservation is the value of a reserved/<id> key, JSON-encoded as
//
//	{"r":1234,"last":0,"owner":"host-a"}
//
// r is the reservation R; last, when not zero, the last tick issued before
// a clean release (at most r); owner the Owner that last claimed, reserved
// or released the ID, so it can take the same ID again.
type reservation struct {
	R     uint64 `json:"r"`
	Last  uint64 `json:"last"`
	Owner string `json:"owner"`
}

// maxReservation bounds an encoded reservation: two numbers and an owner
// name fit in far less.
const maxReservation = 4096

func (r reservation) encode() string {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // unreachable: the struct always encodes
	}
	return string(b)
}

// decodeReservation decodes a reservation strictly: one JSON object with
// no fields but r, last and owner (case-sensitive), none null, r present,
// last at most r, and nothing after it.
func decodeReservation(b []byte) (reservation, error) {
	var r reservation
	if len(b) > maxReservation {
		return r, fmt.Errorf("%w: reservation of %d bytes", ErrCorrupt, len(b))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return r, fmt.Errorf("%w: reservation %q: %v", ErrCorrupt, b, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return r, fmt.Errorf("%w: reservation %q: data after the object", ErrCorrupt, b)
	}
	if raw == nil {
		return r, fmt.Errorf("%w: reservation %q: not an object", ErrCorrupt, b)
	}
	for k := range raw {
		if k != "r" && k != "last" && k != "owner" {
			return r, fmt.Errorf("%w: reservation %q: unknown field %q", ErrCorrupt, b, k)
		}
	}
	fields := []struct {
		name string
		dst  any
	}{{"r", &r.R}, {"last", &r.Last}, {"owner", &r.Owner}}
	for _, f := range fields {
		v, ok := raw[f.name]
		if !ok {
			if f.name == "r" {
				return r, fmt.Errorf("%w: reservation %q: no field r", ErrCorrupt, b)
			}
			continue
		}
		if bytes.Equal(v, []byte("null")) {
			return r, fmt.Errorf("%w: reservation %q: field %s is null", ErrCorrupt, b, f.name)
		}
		if err := json.Unmarshal(v, f.dst); err != nil {
			return r, fmt.Errorf("%w: reservation %q: field %s: %v", ErrCorrupt, b, f.name, err)
		}
	}
	if r.Last > r.R {
		return r, fmt.Errorf("%w: reservation %q: last tick above r", ErrCorrupt, b)
	}
	return r, nil
}
