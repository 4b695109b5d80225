package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestAppendAuth(t *testing.T) {
	tests := []struct {
		name, token string
		want        []byte
		err         error
	}{
		{"short token", "ab", []byte{0, 2, 'a', 'b'}, nil},
		{"longest token", strings.Repeat("x", 255), append([]byte{0, 255}, strings.Repeat("x", 255)...), nil},
		{"empty token", "", nil, ErrTokenLength},
		{"token too long", strings.Repeat("x", 256), nil, ErrTokenLength},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendAuth(nil, tc.token)
			if !errors.Is(err, tc.err) || (err == nil && !bytes.Equal(got, tc.want)) {
				t.Errorf("got %v, %v; want %v, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestAppendRequest(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want []byte
		err  error
	}{
		{"one", 1, []byte{1}, nil},
		{"most", 255, []byte{255}, nil},
		{"zero", 0, nil, ErrCount},
		{"too many", 256, nil, ErrCount},
		{"negative", -1, nil, ErrCount},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendRequest(nil, tc.n)
			if !errors.Is(err, tc.err) || (err == nil && !bytes.Equal(got, tc.want)) {
				t.Errorf("got %v, %v; want %v, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestReadIDs(t *testing.T) {
	want := []uint64{1, 1 << 63, 0x0102030405060708}
	var reply []byte
	for _, id := range want {
		reply = AppendID(reply, id)
	}
	if !bytes.Equal(reply[16:], []byte{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Fatalf("AppendID is not big-endian: % x", reply[16:])
	}
	got := make([]uint64, 3)
	if _, err := ReadIDs(bytes.NewReader(reply), got, nil); err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	_, err := ReadIDs(bytes.NewReader(reply[:20]), got, make([]byte, 4))
	if !errors.Is(err, ErrShortReply) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut reply: got %v, want ErrShortReply", err)
	}
}

func TestReadAuth(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		token   string
		present bool
		err     error
		next    int // the request read after the frame, 0 for none
	}{
		{"frame then request", []byte{0, 3, 'a', 'b', 'c', 7}, "abc", true, nil, 7},
		{"empty token", []byte{0, 0, 9}, "", true, nil, 9},
		{"no frame", []byte{5}, "", false, nil, 5},
		{"nothing", nil, "", false, io.EOF, 0},
		{"marker only", []byte{0}, "", true, io.ErrUnexpectedEOF, 0},
		{"half a token", []byte{0, 4, 'a'}, "", true, io.ErrUnexpectedEOF, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := bufio.NewReader(bytes.NewReader(tc.in))
			token, present, err := ReadAuth(r, nil)
			if string(token) != tc.token || present != tc.present || !errors.Is(err, tc.err) {
				t.Fatalf("got %q, %v, %v; want %q, %v, %v", token, present, err, tc.token, tc.present, tc.err)
			}
			if tc.next != 0 {
				if n, err := ReadRequest(r); n != tc.next || err != nil {
					t.Errorf("next request: got %d, %v; want %d", n, err, tc.next)
				}
			}
		})
	}
}

func TestParseAuth(t *testing.T) {
	tests := []struct {
		name  string
		in    []byte
		token string
		size  int
		ok    bool
	}{
		{"frame then request", []byte{0, 3, 'a', 'b', 'c', 7}, "abc", 5, true},
		{"frame only", []byte{0, 2, 'a', 'b'}, "ab", 4, true},
		{"empty token", []byte{0, 0}, "", 2, true},
		{"marker only", []byte{0}, "", 2, false},
		{"half a token", []byte{0, 4, 'a'}, "", 6, false},
		{"longest token cut short", []byte{0, 255}, "", 257, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			token, size, ok := ParseAuth(tc.in)
			if string(token) != tc.token || size != tc.size || ok != tc.ok {
				t.Errorf("got %q, %d, %v; want %q, %d, %v", token, size, ok, tc.token, tc.size, tc.ok)
			}
		})
	}
}

func TestParseRequest(t *testing.T) {
	tests := []struct {
		name string
		b    byte
		want int
		err  error
	}{
		{"one", 1, 1, nil},
		{"most", 255, 255, nil},
		{"zero", 0, 0, ErrZeroCount},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRequest(tc.b)
			if got != tc.want || !errors.Is(err, tc.err) {
				t.Errorf("got %d, %v; want %d, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestReadRequest(t *testing.T) {
	r := bufio.NewReader(bytes.NewReader([]byte{1, 255, 0}))
	for _, want := range []int{1, 255} {
		if n, err := ReadRequest(r); n != want || err != nil {
			t.Fatalf("got %d, %v; want %d", n, err, want)
		}
	}
	if _, err := ReadRequest(r); !errors.Is(err, ErrZeroCount) {
		t.Errorf("byte 0: got %v, want ErrZeroCount", err)
	}
	if _, err := ReadRequest(r); err != io.EOF {
		t.Errorf("end: got %v, want io.EOF", err)
	}
}

// FuzzReadFrames decodes a byte stream as a server does: an optional auth
// frame, then requests. It must never panic, must account for every byte,
// and must decode what the encoders wrote.
func FuzzReadFrames(f *testing.F) {
	f.Add([]byte{0, 3, 'a', 'b', 'c', 1, 255})
	f.Add([]byte{1, 2, 3})
	f.Add([]byte{0})
	f.Add([]byte{0, 9, 'x'})
	f.Add([]byte{4, 0, 4})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(in), 16)
		token, present, err := ReadAuth(r, nil)
		if len(in) > 0 && in[0] == AuthMarker {
			// ParseAuth, on what was read whole, agrees with ReadAuth.
			ptoken, size, ok := ParseAuth(in)
			if ok != (err == nil) || ok && (!bytes.Equal(ptoken, token) || size != 2+len(token)) || !ok && size <= len(in) {
				t.Fatalf("%v: ParseAuth %q, %d, %v; ReadAuth %q, %v", in, ptoken, size, ok, token, err)
			}
		}
		used := 0
		switch {
		case err != nil:
			if len(in) > 0 && in[0] == 0 && len(in) >= 2 && len(in) >= 2+int(in[1]) {
				t.Fatalf("complete auth frame %v failed: %v", in, err)
			}
			return
		case present:
			if in[0] != 0 || int(in[1]) != len(token) || !bytes.Equal(in[2:2+len(token)], token) {
				t.Fatalf("auth frame %v decoded as token %q", in, token)
			}
			used = 2 + len(token)
		}
		var counts []int
		for {
			n, err := ReadRequest(r)
			if err == io.EOF {
				break
			}
			if err != nil {
				if !errors.Is(err, ErrZeroCount) || in[used+len(counts)] != 0 {
					t.Fatalf("request %d of %v: %v", len(counts), in, err)
				}
				return
			}
			if n < 1 || n > MaxCount || in[used+len(counts)] != byte(n) {
				t.Fatalf("request %d of %v decoded as %d", len(counts), in, n)
			}
			counts = append(counts, n)
		}
		if used+len(counts) != len(in) {
			t.Fatalf("decoded %d of %d bytes", used+len(counts), len(in))
		}
		// Encode what was decoded and compare.
		var out []byte
		if present {
			if len(token) == 0 {
				out = []byte{0, 0}
			} else if out, err = AppendAuth(out, string(token)); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range counts {
			out, _ = AppendRequest(out, n)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("re-encoded %v as %v", in, out)
		}
	})
}
