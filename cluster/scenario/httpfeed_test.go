//go:build unix

package scenario_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/id128"
)

// httpConn is a feed's connection for a named sequence: a client of its
// own that keeps one HTTP connection alive, asking GET /v1/ids.
type httpConn struct {
	client *http.Client
	url    string // up to the value of n
}

// newHTTPConn returns a connection to p's HTTP API; each connection its
// client opens must reach p (floedproc.Proc.DialContext).
func newHTTPConn(p *floedproc.Proc, seq string, timeout time.Duration) *httpConn {
	return &httpConn{
		client: &http.Client{
			Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, DialContext: p.DialContext},
			Timeout:   timeout,
		},
		url: "http://" + p.HTTP + "/v1/ids?seq=" + url.QueryEscape(seq) + "&n=",
	}
}

// errBadReply marks a reply that breaks the API (a status other than 200
// or 503, a body that does not decode, IDs out of order): the feed fails
// the test on it, where a fault only makes it ask again.
var errBadReply = errors.New("bad reply")

// Fetch asks for n IDs and returns them as the ledger keys them. A daemon
// not ready (503), gone or too slow is an error, as a closed binary
// connection is.
func (c *httpConn) Fetch(n int) ([]uint64, error) {
	resp, err := c.client.Get(c.url + strconv.Itoa(n))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return decodeIDs(body, n)
	case http.StatusServiceUnavailable:
		return nil, fmt.Errorf("%s: %s", resp.Status, body)
	}
	return nil, fmt.Errorf("%w: %s: %s", errBadReply, resp.Status, body)
}

func (c *httpConn) Close() error {
	c.client.CloseIdleConnections()
	return nil
}

// decodeIDs reads the JSON reply of GET /v1/ids, which must hold n IDs, in
// increasing order, of an id64 sequence (decimal) or an id128 one (UUID
// text, keyed by nodeKey128).
func decodeIDs(body []byte, n int) ([]uint64, error) {
	var v struct {
		Format string   `json:"format"`
		IDs    []string `json:"ids"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("%w: %q: %v", errBadReply, body, err)
	}
	if len(v.IDs) != n {
		return nil, fmt.Errorf("%w: %d IDs, want %d: %q", errBadReply, len(v.IDs), n, body)
	}
	keys := make([]uint64, n)
	for i, s := range v.IDs {
		var err error
		switch v.Format {
		case "id64":
			keys[i], err = strconv.ParseUint(s, 10, 64)
		case "id128":
			var id id128.ID
			if id, err = id128.Parse(s); err == nil {
				keys[i], err = nodeKey128(id)
			}
		default:
			err = fmt.Errorf("format %q, want id64 or id128", v.Format)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: ID %q: %v", errBadReply, s, err)
		}
		if i > 0 && keys[i] <= keys[i-1] {
			return nil, fmt.Errorf("%w: ID %s not above %s, the one before it", errBadReply, s, v.IDs[i-1])
		}
	}
	return keys, nil
}

// nodeKey128 returns the ledger's key of an id128 ID a floed node issued:
// its millisecond (41 bits, until 2039), worker ID (16 bits: a node claims
// any of 65,536) and counter (7 bits: the feeds ask far fewer than 128 IDs
// of one worker ID a millisecond), never its random bits. key128 keeps the
// places of a Twitter-layout ID instead, for worker IDs below 1,024. A key
// that cannot hold its ID is an error.
func nodeKey128(id id128.ID) (uint64, error) {
	if id.Tick() >= 1<<keyTickBits || id.Counter() >= 1<<keyCounterBits {
		return 0, fmt.Errorf("id128 %s (tick %d, worker %d, counter %d) does not fit a ledger key", id, id.Tick(), id.Worker(), id.Counter())
	}
	return id.Tick()<<(keyWorkerBits+keyCounterBits) | uint64(id.Worker())<<keyCounterBits | uint64(id.Counter()), nil
}

// The fields of a nodeKey128 key.
const keyTickBits, keyWorkerBits, keyCounterBits = 41, 16, 7

// keyTick returns the millisecond of a nodeKey128 key, keyWorker its
// worker ID and keyCounter its counter.
func keyTick(k uint64) uint64    { return k >> (keyWorkerBits + keyCounterBits) }
func keyWorker(k uint64) int     { return int(k>>keyCounterBits) & (1<<keyWorkerBits - 1) }
func keyCounter(k uint64) uint64 { return k & (1<<keyCounterBits - 1) }

// describeKey128 writes out a nodeKey128 key, for a ledger's report.
func describeKey128(k uint64) string {
	return fmt.Sprintf("id128 key %d (ms %d, worker %d, counter %d)", k, keyTick(k), keyWorker(k), keyCounter(k))
}

func TestNodeKey128(t *testing.T) {
	tests := []struct {
		id      string
		tick    uint64
		worker  int
		counter uint64
		wantErr bool
	}{
		{"01a2016d-4944-7000-8000-005a3c9e41d7", 1795320269124, 0, 0, false},
		{"01a21557-01cf-7000-8874-793c6023db96", 1795654353359, 29817, 8, false},
		{"01a21557-01cf-7000-bfff-ff3c6023db96", 1795654353359, 65535, 63, false},
		{"01a21557-01cf-7001-8274-793c6023db96", 1795654353359, 29817, 1<<6 | 2, false},
		{"01a21557-01cf-7002-8074-793c6023db96", 0, 0, 0, true}, // counter 128
	}
	for _, tt := range tests {
		id := id128.MustParse(tt.id)
		k, err := nodeKey128(id)
		if (err != nil) != tt.wantErr {
			t.Fatalf("nodeKey128(%s) error = %v, want error %v", tt.id, err, tt.wantErr)
		}
		if err != nil {
			continue
		}
		if got, want := describeKey128(k), fmt.Sprintf("id128 key %d (ms %d, worker %d, counter %d)", k, tt.tick, tt.worker, tt.counter); got != want {
			t.Errorf("describeKey128 = %q, want %q", got, want)
		}
		if got := [3]uint64{keyTick(k), uint64(keyWorker(k)), keyCounter(k)}; got != [3]uint64{tt.tick, uint64(tt.worker), tt.counter} {
			t.Errorf("nodeKey128(%s) reads back as tick, worker, counter %v, want %d, %d, %d", tt.id, got, tt.tick, tt.worker, tt.counter)
		}
		if id.Tick() != tt.tick || int(id.Worker()) != tt.worker || uint64(id.Counter()) != tt.counter {
			t.Errorf("test ID %s: tick %d, worker %d, counter %d", tt.id, id.Tick(), id.Worker(), id.Counter())
		}
	}
}

func TestDecodeIDs(t *testing.T) {
	const a, b = "01a2016d-4944-7000-8000-005a3c9e41d7", "01a2016d-4944-7000-8100-005a3c9e41d7"
	ka, err := nodeKey128(id128.MustParse(a))
	if err != nil {
		t.Fatal(err)
	}
	kb, err := nodeKey128(id128.MustParse(b))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		body    string
		n       int
		want    []uint64
		wantErr bool
	}{
		{"id64", `{"seq":"default","format":"id64","ids":["5","9"]}`, 2, []uint64{5, 9}, false},
		{"id128", `{"seq":"orders","format":"id128","ids":["` + a + `","` + b + `"]}`, 2, []uint64{ka, kb}, false},
		{"id128 out of order", `{"seq":"orders","format":"id128","ids":["` + b + `","` + a + `"]}`, 2, nil, true},
		{"id128 repeated", `{"seq":"orders","format":"id128","ids":["` + a + `","` + a + `"]}`, 2, nil, true},
		{"not version 7", `{"seq":"orders","format":"id128","ids":["f47ac10b-58cc-4372-a567-0e02b2c3d479"]}`, 1, nil, true},
		{"too few", `{"seq":"default","format":"id64","ids":["5"]}`, 2, nil, true},
		{"other format", `{"seq":"events","format":"id80","ids":["9q8jue7222222222"]}`, 1, nil, true},
		{"not JSON", `ready`, 1, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeIDs([]byte(tt.body), tt.n)
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, errBadReply)) {
				t.Fatalf("decodeIDs(%s) error = %v, want error %v (errBadReply)", tt.body, err, tt.wantErr)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("decodeIDs(%s) = %v, want %v", tt.body, got, tt.want)
			}
		})
	}
}
