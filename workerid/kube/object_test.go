package kube

import (
	"errors"
	"strings"
	"testing"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/floeid/floe/workerid"
)

func TestSequenceKey(t *testing.T) {
	tests := []struct {
		name string
		want string // the readable part, before "-<10 hex>"
	}{
		{"orders", "orders"},
		{"Orders", "orders"},
		{"a.b_c-d", "a-b-c-d"},
		{"--a..b__", "a-b"},
		{"_", ""},
		{"...x", "x"},
		{strings.Repeat("a", 64), strings.Repeat("a", 40)},
		{strings.Repeat("a", 39) + "-b", strings.Repeat("a", 39)},
		{strings.Repeat("a", 39) + "_bcd", strings.Repeat("a", 39)},
	}
	seen := make(map[string]string)
	for _, tt := range tests {
		got := sequenceKey(tt.name)
		text, hash := "", got
		if i := strings.LastIndexByte(got, '-'); i >= 0 {
			text, hash = got[:i], got[i+1:]
		}
		if text != tt.want || len(hash) != keyHash {
			t.Errorf("sequenceKey(%q) = %q, want %q and %d hex digits", tt.name, got, tt.want, keyHash)
		}
		if errs := validation.IsDNS1123Label(got); len(errs) > 0 || len(got) > 51 {
			t.Errorf("sequenceKey(%q) = %q: not a DNS label of at most 51 bytes: %v", tt.name, got, errs)
		}
		if errs := validation.IsValidLabelValue(got); len(errs) > 0 {
			t.Errorf("sequenceKey(%q) = %q: not a label value: %v", tt.name, got, errs)
		}
		if other, ok := seen[got]; ok {
			t.Errorf("sequenceKey(%q) = sequenceKey(%q) = %q", tt.name, other, got)
		}
		seen[got] = tt.name
	}
	if sequenceKey("Orders") == sequenceKey("orders") {
		t.Error(`"Orders" and "orders" have one key`)
	}
}

// TestObjectNames: every name a catalog makes, for the longest cluster and
// sequence names and a large generation and worker ID, is a valid object
// name.
func TestObjectNames(t *testing.T) {
	cluster := strings.Repeat("c", maxCluster)
	for _, name := range []string{"a", "Orders", strings.Repeat("Z", 64), strings.Repeat("_", 64)} {
		rec := recordName(cluster, name)
		for _, n := range []string{rec, genPrefix(rec, 1<<62) + "1048575"} {
			if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
				t.Errorf("name %q: %v", n, errs)
			}
		}
		if err := checkPrefix(genPrefix(rec, 1<<62), 1<<20); err != nil {
			t.Errorf("the Prefix of %q: %v", name, err)
		}
	}
}

func TestCheckCluster(t *testing.T) {
	tests := []struct {
		cluster string
		ok      bool
	}{
		{"prod", true},
		{"prod-eu-1", true},
		{"0", true},
		{strings.Repeat("a", 40), true},
		{"", false},
		{strings.Repeat("a", 41), false},
		{"Prod", false},
		{"prod.eu", false},
		{"-prod", false},
		{"prod-", false},
		{"prod_eu", false},
	}
	for _, tt := range tests {
		err := checkCluster(tt.cluster)
		if got := err == nil; got != tt.ok || (err != nil && !errors.Is(err, ErrCluster)) {
			t.Errorf("checkCluster(%q) = %v, want ok %v", tt.cluster, err, tt.ok)
		}
	}
	if _, err := NewCatalog(newFakeAPI(), "floe", "Prod"); !errors.Is(err, ErrCluster) {
		t.Errorf("NewCatalog with cluster Prod: %v, want ErrCluster", err)
	}
	if _, err := NewCatalog(newFakeAPI(), "", "prod"); !errors.Is(err, ErrNamespace) {
		t.Errorf("NewCatalog without a namespace: %v, want ErrNamespace", err)
	}
	if _, err := NewCatalog(nil, "floe", "prod"); !errors.Is(err, ErrNoClient) {
		t.Errorf("NewCatalog without a client: %v, want ErrNoClient", err)
	}
}

// leaseWith returns a Lease ns/name with the annotations.
func leaseWith(ann map[string]string) *coordv1.Lease {
	return &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "floe-0", Annotations: ann}}
}

func TestWorker_RoundTrip(t *testing.T) {
	tests := []worker{
		{holder: "host-a/0123456789abcdef", reserved: 0, fence: 1, owner: "host-a"},
		{holder: "", reserved: 5000, last: 4000, fence: 7, owner: "host-b"},
		{holder: "", reserved: 1<<64 - 1, last: 1<<64 - 1, fence: 1 << 62, owner: ""},
		{holder: "", reserved: 10, fence: 2, owner: "x", retired: true},
	}
	for _, want := range tests {
		l := leaseWith(map[string]string{"other": "kept", annLast: "3", annState: stateRetired})
		setWorker(l, want)
		got, err := decodeWorker(l)
		if err != nil || got != want {
			t.Errorf("decodeWorker(setWorker(%+v)) = %+v, %v", want, got, err)
		}
		if l.Annotations["other"] != "kept" {
			t.Errorf("setWorker dropped another annotation: %v", l.Annotations)
		}
	}
}

func TestDecodeWorker_Refuses(t *testing.T) {
	good := map[string]string{annReserved: "100", annFence: "3", annOwner: "a"}
	tests := []struct {
		name  string
		key   string
		value string // "" with del: removed
		del   bool
	}{
		{"no reservation", annReserved, "", true},
		{"empty reservation", annReserved, "", false},
		{"negative reservation", annReserved, "-1", false},
		{"signed reservation", annReserved, "+1", false},
		{"leading zero", annReserved, "0100", false},
		{"exponent", annReserved, "1e6", false},
		{"spaces", annReserved, " 100", false},
		{"above uint64", annReserved, "18446744073709551616", false},
		{"no fence", annFence, "", true},
		{"zero fence", annFence, "0", false},
		{"fence too large", annFence, "9223372036854775807", false},
		{"last above R", annLast, "101", false},
		{"last not decimal", annLast, "x", false},
		{"unknown state", annState, "live", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ann := make(map[string]string)
			for k, v := range good {
				ann[k] = v
			}
			if tt.del {
				delete(ann, tt.key)
			} else {
				ann[tt.key] = tt.value
			}
			_, err := decodeWorker(leaseWith(ann))
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decodeWorker: %v, want ErrCorrupt", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "Lease ns/floe-0 annotation "+tt.key) {
				t.Errorf("error %q does not name the object and the field", msg)
			}
		})
	}
	if _, err := decodeWorker(leaseWith(good)); err != nil {
		t.Fatalf("decodeWorker of a good object: %v", err)
	}
}

func TestRecord_RoundTrip(t *testing.T) {
	tokens := workerid.NewTokens(workerid.HashToken([]byte("a")), workerid.HashToken([]byte("b")))
	tests := []record{
		{name: "orders", state: stateLive, gen: 1, spec: `{"format":"id64"}`},
		{name: "Orders", state: stateLive, gen: 3, spec: "", tokens: tokens, retired: workerid.Retired{Gen: 2, Spec: `a "quoted" <spec>`, Tick: 1 << 63}},
		{name: "o", state: stateDestroying, gen: 3, spec: "s", tokens: tokens},
		{name: "o", state: stateRetired, gen: 3, retired: workerid.Retired{Gen: 3, Spec: "s", Tick: 9}},
		{name: "o", state: stateRetired, gen: 4},
	}
	for _, want := range tests {
		l := leaseWith(nil)
		setRecord(l, want)
		got, err := decodeRecord(l)
		if err != nil || got != want {
			t.Errorf("decodeRecord(setRecord(%+v)) = %+v, %v", want, got, err)
		}
	}
}

func TestDecodeRecord_Refuses(t *testing.T) {
	good := map[string]string{annSequence: "orders", annState: stateLive, annGen: "2", annSpec: "s"}
	tests := []struct {
		name  string
		key   string
		value string
		del   bool
	}{
		{"no name", annSequence, "", true},
		{"invalid name", annSequence, "a/b", false},
		{"unknown state", annState, "gone", false},
		{"no generation", annGen, "", true},
		{"generation 0", annGen, "0", false},
		{"no spec while live", annSpec, "", true},
		{"bad tokens", annTokens, "abc", false},
		{"retired not JSON", annRetired, "gen=1", false},
		{"retired with another field", annRetired, `{"gen":1,"spec":"s","tick":2,"x":1}`, false},
		{"retired without a tick", annRetired, `{"gen":1,"spec":"s"}`, false},
		{"retired tick 0", annRetired, `{"gen":1,"spec":"s","tick":0}`, false},
		{"retired after the generation", annRetired, `{"gen":3,"spec":"s","tick":2}`, false},
		{"retired with data after it", annRetired, `{"gen":1,"spec":"s","tick":2} {}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ann := make(map[string]string)
			for k, v := range good {
				ann[k] = v
			}
			if tt.del {
				delete(ann, tt.key)
			} else {
				ann[tt.key] = tt.value
			}
			_, err := decodeRecord(leaseWith(ann))
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decodeRecord: %v, want ErrCorrupt", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "Lease ns/floe-0 annotation "+tt.key) {
				t.Errorf("error %q does not name the object and the field", msg)
			}
		})
	}
}

// FuzzDecodeWorker reads worker Leases as a hand edit may leave them:
// never a panic, ErrCorrupt naming the object otherwise, and what decodes
// writes back to the same.
func FuzzDecodeWorker(f *testing.F) {
	f.Add("100", "", "3", "host-a", "", "holder/1")
	f.Add("100", "50", "3", "", "retired", "")
	f.Add("0100", "x", "0", "a", "live", "")
	f.Add("18446744073709551615", "18446744073709551615", "4611686018427387904", "", "", "")
	f.Fuzz(func(t *testing.T, reserved, last, fence, owner, state, holder string) {
		ann := map[string]string{annReserved: reserved, annFence: fence, annOwner: owner}
		if last != "" {
			ann[annLast] = last
		}
		if state != "" {
			ann[annState] = state
		}
		l := leaseWith(ann)
		l.Spec.HolderIdentity = &holder
		w, err := decodeWorker(l)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "Lease ns/floe-0") {
				t.Fatalf("decodeWorker: %v, want ErrCorrupt naming the object", err)
			}
			return
		}
		if w.last > w.reserved || w.fence < 1 {
			t.Fatalf("decodeWorker = %+v: last above R or fence below 1", w)
		}
		back := leaseWith(nil)
		setWorker(back, w)
		if got, err := decodeWorker(back); err != nil || got != w {
			t.Fatalf("round trip of %+v: %+v, %v", w, got, err)
		}
	})
}

// FuzzDecodeRecord reads record Leases as a hand edit may leave them.
func FuzzDecodeRecord(f *testing.F) {
	f.Add("orders", "live", "1", "spec", "", "")
	f.Add("Orders", "retired", "2", "", "", `{"gen":2,"spec":"s","tick":5}`)
	f.Add("o", "destroying", "01", "s", "zz", `{"gen":1}`)
	f.Fuzz(func(t *testing.T, name, state, gen, spec, tokens, retired string) {
		ann := map[string]string{annSequence: name, annState: state, annGen: gen, annSpec: spec}
		if tokens != "" {
			ann[annTokens] = tokens
		}
		if retired != "" {
			ann[annRetired] = retired
		}
		r, err := decodeRecord(leaseWith(ann))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "Lease ns/floe-0") {
				t.Fatalf("decodeRecord: %v, want ErrCorrupt naming the object", err)
			}
			return
		}
		if r.retired.Gen > r.gen || r.gen < 1 || !workerid.ValidName(r.name) {
			t.Fatalf("decodeRecord = %+v", r)
		}
		back := leaseWith(nil)
		setRecord(back, r)
		if got, err := decodeRecord(back); err != nil || got != r {
			t.Fatalf("round trip of %+v: %+v, %v", r, got, err)
		}
	})
}
