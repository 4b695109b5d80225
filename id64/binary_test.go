package id64

import (
	"bytes"
	"testing"

	"github.com/floeid/floe"
)

var binaryTests = []struct {
	name string
	in   []byte
	want ID
	err  error
}{
	{"zero", make([]byte, 8), 0, nil},
	{"one", []byte{0, 0, 0, 0, 0, 0, 0, 1}, 1, nil},
	{"big-endian", []byte{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08}, 0x0102030405060708, nil},
	{"top bit", []byte{0x80, 0, 0, 0, 0, 0, 0, 0}, 1 << 63, nil},
	{"all ones", bytes.Repeat([]byte{0xff}, 8), 1<<64 - 1, nil},
	{"nil", nil, 0, floe.ErrInvalidLength},
	{"empty", []byte{}, 0, floe.ErrInvalidLength},
	{"7 bytes", make([]byte, 7), 0, floe.ErrInvalidLength},
	{"9 bytes", make([]byte, 9), 0, floe.ErrInvalidLength},
	{"16 bytes", make([]byte, 16), 0, floe.ErrInvalidLength},
}

func TestFromBytes(t *testing.T) {
	for _, tt := range binaryTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromBytes(tt.in)
			checkParseError(t, err, tt.err, string(tt.in))
			if got != tt.want {
				t.Errorf("FromBytes(%x) = %d, want %d", tt.in, got, tt.want)
			}
			x := ID(77)
			err = x.UnmarshalBinary(tt.in)
			checkParseError(t, err, tt.err, string(tt.in))
			if want := map[bool]ID{true: tt.want, false: 77}[tt.err == nil]; x != want {
				t.Errorf("UnmarshalBinary(%x) gave %d, want %d", tt.in, x, want)
			}
		})
	}
}

func TestID_BinaryRoundTrip(t *testing.T) {
	for _, tt := range binaryTests {
		if tt.err != nil {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.want.Bytes(); !bytes.Equal(got, tt.in) {
				t.Errorf("Bytes() = %x, want %x", got, tt.in)
			}
			b, err := tt.want.MarshalBinary()
			if err != nil || !bytes.Equal(b, tt.in) {
				t.Errorf("MarshalBinary() = %x, %v; want %x", b, err, tt.in)
			}
			b, err = tt.want.AppendBinary([]byte{0xaa})
			if err != nil || !bytes.Equal(b, append([]byte{0xaa}, tt.in...)) {
				t.Errorf("AppendBinary(aa) = %x, %v", b, err)
			}
		})
	}
}
