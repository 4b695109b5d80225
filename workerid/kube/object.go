package kube

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/floeid/floe/workerid"
)

// Labels floe puts on its Lease objects, and their values.
const (
	labelManagedBy = "app.kubernetes.io/managed-by"
	managedBy      = "floe"
	labelSource    = "floe.dev/source"   // worker leases: sourceLabel(Prefix)
	labelOwner     = "floe.dev/owner"    // worker leases: hashLabel(the latest holder's Owner)
	labelCluster   = "floe.dev/cluster"  // catalog records and their worker leases
	labelKind      = "floe.dev/kind"     // catalog records: kindSequence
	labelSequence  = "floe.dev/sequence" // worker leases of a sequence: its key
	labelGen       = "floe.dev/gen"      // worker leases of a sequence: the generation
	kindSequence   = "sequence"
)

// Annotations, all of them text floe writes and reads back strictly.
const (
	annReserved = "floe.dev/reserved" // worker: R, decimal, never decreases
	annLast     = "floe.dev/last"     // worker: last tick of a clean release; absent or "0" otherwise
	annFence    = "floe.dev/fence"    // worker: the fence of the latest claim
	annOwner    = "floe.dev/owner"    // worker: the Owner of the latest holder
	annState    = "floe.dev/state"    // worker: absent or "retired"; record: live, destroying, retired
	annSequence = "floe.dev/sequence" // record: the exact sequence name
	annGen      = "floe.dev/gen"      // record: the current or last generation
	annSpec     = "floe.dev/spec"     // record: the spec, while live or destroying
	annTokens   = "floe.dev/token-sha256"
	annRetired  = "floe.dev/retired" // record: {"gen":G,"spec":"...","tick":T}
)

// States of a record and of a worker lease.
const (
	stateLive       = "live"
	stateDestroying = "destroying"
	stateRetired    = "retired"
)

// Bounds of names.
const (
	maxCluster = 40 // bytes of a cluster name
	maxKeyText = 40 // bytes of a sequence key's readable part
	keyHash    = 10 // hex digits of sha256(name) in a sequence key
)

// objName names an object in errors and logs: namespace/name.
func objName(l *coordv1.Lease) string { return l.Namespace + "/" + l.Name }

// sourceLabel is the value of labelSource for a Prefix: 20 hex digits of
// its SHA-256, a valid label value whatever the Prefix's length.
func sourceLabel(prefix string) string { return hashLabel(prefix) }

// hashLabel is a label value naming s: 20 hex digits of its SHA-256, a
// valid label value whatever s's length.
func hashLabel(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:10])
}

// sequenceKey is the part of a sequence's object names and labels that
// names it: the name lower-cased, runs of bytes outside [a-z0-9] made one
// '-', trimmed of '-' and cut to 40 bytes, then "-" and 10 hex digits of
// the SHA-256 of the exact name, so that "Orders" and "orders" differ.
// At most 51 bytes, a DNS label and a label value.
func sequenceKey(name string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(name) && b.Len() < maxKeyText; i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteByte(c)
			continue
		}
		dash = true
	}
	text := strings.TrimRight(b.String()[:min(b.Len(), maxKeyText)], "-")
	sum := sha256.Sum256([]byte(name))
	h := hex.EncodeToString(sum[:])[:keyHash]
	if text == "" {
		return h
	}
	return text + "-" + h
}

// recordName is the name of a sequence's record Lease in a cluster.
func recordName(cluster, name string) string {
	return "floe-" + cluster + "-" + sequenceKey(name)
}

// genPrefix is the Prefix of the worker leases of a sequence's generation.
func genPrefix(record string, gen int64) string {
	return record + "-g" + strconv.FormatInt(gen, 10) + "-"
}

// checkCluster checks a cluster name: a DNS label of 1 to 40 bytes.
func checkCluster(cluster string) error {
	if len(cluster) == 0 || len(cluster) > maxCluster || len(validation.IsDNS1123Label(cluster)) > 0 {
		return fmt.Errorf("%w: %q", ErrCluster, cluster)
	}
	return nil
}

// checkNamespace checks a namespace name: a DNS label.
func checkNamespace(ns string) error {
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return fmt.Errorf("%w: %q: %s", ErrNamespace, ns, strings.Join(errs, "; "))
	}
	return nil
}

// checkPrefix checks that prefix followed by each worker ID below ids is
// a valid object name: the longest and the shortest are checked.
func checkPrefix(prefix string, ids int) error {
	if prefix == "" {
		return fmt.Errorf("%w: empty", ErrPrefix)
	}
	for _, id := range []int{0, ids - 1} {
		if errs := validation.IsDNS1123Subdomain(prefix + strconv.Itoa(id)); len(errs) > 0 {
			return fmt.Errorf("%w: %q: %s", ErrPrefix, prefix+strconv.Itoa(id), strings.Join(errs, "; "))
		}
	}
	return nil
}

// worker is what a worker lease holds.
type worker struct {
	holder   string        // spec.holderIdentity; "" when free
	duration time.Duration // spec.leaseDurationSeconds; 0 when absent or not positive
	reserved uint64        // R
	last     uint64        // last tick of a clean release; 0: none
	fence    int64         // the latest claim's fence, at least 1
	owner    string        // the latest holder's Owner
	retired  bool          // tombstoned by Catalog.Destroy
}

// corrupt is the error of an annotation that does not decode.
func corrupt(l *coordv1.Lease, key, value, why string) error {
	return fmt.Errorf("%w: Lease %s annotation %s: %q: %s", ErrCorrupt, objName(l), key, value, why)
}

// parseUint parses canonical decimal: digits only, no sign, no leading
// zero but in "0".
func parseUint(s string) (uint64, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// decodeWorker reads a worker lease strictly: R and the fence present,
// canonical decimal, the fence at least 1, the last tick at most R, the
// state absent or retired. The error names the object and the field.
func decodeWorker(l *coordv1.Lease) (worker, error) {
	var w worker
	ann := l.Annotations
	if l.Spec.HolderIdentity != nil {
		w.holder = *l.Spec.HolderIdentity
	}
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d > 0 {
		w.duration = time.Duration(*d) * time.Second
	}
	v, ok := ann[annReserved]
	if w.reserved, ok = parseUintOK(v, ok); !ok {
		return w, corrupt(l, annReserved, v, "not a decimal reservation")
	}
	v, ok = ann[annFence]
	fence, ok := parseUintOK(v, ok)
	if !ok || fence < 1 || fence > 1<<62 {
		return w, corrupt(l, annFence, v, "not a fence of 1 or more")
	}
	w.fence = int64(fence)
	if v, ok = ann[annLast]; ok {
		if w.last, ok = parseUint(v); !ok {
			return w, corrupt(l, annLast, v, "not a decimal tick")
		}
		if w.last > w.reserved {
			return w, corrupt(l, annLast, v, "above the reservation "+strconv.FormatUint(w.reserved, 10))
		}
	}
	w.owner = ann[annOwner]
	switch v, ok := ann[annState]; {
	case !ok:
	case v == stateRetired:
		w.retired = true
	default:
		return w, corrupt(l, annState, v, `not "retired"`)
	}
	return w, nil
}

// parseUintOK is parseUint of a value that must be present.
func parseUintOK(v string, present bool) (uint64, bool) {
	if !present {
		return 0, false
	}
	return parseUint(v)
}

// setWorker writes w into l: the holder, the duration and floe's
// annotations. Other fields and annotations are kept.
func setWorker(l *coordv1.Lease, w worker) {
	holder := w.holder
	l.Spec.HolderIdentity = &holder
	if w.duration > 0 {
		d := int32(w.duration / time.Second)
		l.Spec.LeaseDurationSeconds = &d
	}
	if l.Annotations == nil {
		l.Annotations = make(map[string]string)
	}
	l.Annotations[annReserved] = strconv.FormatUint(w.reserved, 10)
	l.Annotations[annFence] = strconv.FormatInt(w.fence, 10)
	l.Annotations[annOwner] = w.owner
	if w.last > 0 {
		l.Annotations[annLast] = strconv.FormatUint(w.last, 10)
	} else {
		delete(l.Annotations, annLast)
	}
	if w.retired {
		l.Annotations[annState] = stateRetired
	} else {
		delete(l.Annotations, annState)
	}
}

// record is what a sequence's record Lease holds.
type record struct {
	name    string // the exact sequence name
	state   string // stateLive, stateDestroying or stateRetired
	gen     int64  // the current (live, destroying) or last generation
	spec    string // while live or destroying
	tokens  workerid.Tokens
	retired workerid.Retired // zero when none
}

// retiredValue is the JSON of annRetired.
type retiredValue struct {
	Gen  int64  `json:"gen"`
	Spec string `json:"spec"`
	Tick uint64 `json:"tick"`
}

// maxRetired bounds annRetired: a generation, a spec and a tick.
const maxRetired = 64 << 10

// decodeRecord reads a record strictly. The error names the object and the
// field.
func decodeRecord(l *coordv1.Lease) (record, error) {
	var r record
	ann := l.Annotations
	v, ok := ann[annSequence]
	if !ok || !workerid.ValidName(v) {
		return r, corrupt(l, annSequence, v, "not a sequence name")
	}
	r.name = v
	r.state = ann[annState]
	switch r.state {
	case stateLive, stateDestroying, stateRetired:
	default:
		return r, corrupt(l, annState, r.state, "not live, destroying or retired")
	}
	v, ok = ann[annGen]
	gen, ok := parseUintOK(v, ok)
	if !ok || gen < 1 || gen > 1<<62 {
		return r, corrupt(l, annGen, v, "not a generation of 1 or more")
	}
	r.gen = int64(gen)
	if r.state != stateRetired {
		if r.spec, ok = ann[annSpec]; !ok {
			return r, corrupt(l, annSpec, "", "missing")
		}
		v = ann[annTokens]
		tokens, err := workerid.ParseTokens(v)
		if err != nil {
			return r, corrupt(l, annTokens, v, err.Error())
		}
		r.tokens = tokens
	}
	if v, ok = ann[annRetired]; ok {
		ret, err := decodeRetired(v)
		if err == nil && ret.Gen > r.gen {
			err = fmt.Errorf("generation %d after the current %d", ret.Gen, r.gen)
		}
		if err != nil {
			return r, corrupt(l, annRetired, v, err.Error())
		}
		r.retired = ret
	}
	return r, nil
}

// decodeRetired reads annRetired: one JSON object with gen and tick above
// zero, a spec, no other field and nothing after it.
func decodeRetired(v string) (workerid.Retired, error) {
	if len(v) > maxRetired {
		return workerid.Retired{}, fmt.Errorf("%d bytes", len(v))
	}
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	var raw struct {
		Gen  *int64  `json:"gen"`
		Spec *string `json:"spec"`
		Tick *uint64 `json:"tick"`
	}
	if err := dec.Decode(&raw); err != nil {
		return workerid.Retired{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return workerid.Retired{}, fmt.Errorf("data after the object")
	}
	if raw.Gen == nil || raw.Spec == nil || raw.Tick == nil || *raw.Gen < 1 || *raw.Tick < 1 {
		return workerid.Retired{}, fmt.Errorf("gen, spec and tick, gen and tick above 0, are required")
	}
	return workerid.Retired{Gen: *raw.Gen, Spec: *raw.Spec, Tick: *raw.Tick}, nil
}

// encodeRetired writes annRetired.
func encodeRetired(r workerid.Retired) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(retiredValue{Gen: r.Gen, Spec: r.Spec, Tick: r.Tick}) // a struct of a string and numbers always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// setRecord writes r into l's annotations; the spec and tokens only while
// live or destroying. Other annotations are kept.
func setRecord(l *coordv1.Lease, r record) {
	if l.Annotations == nil {
		l.Annotations = make(map[string]string)
	}
	a := l.Annotations
	a[annSequence] = r.name
	a[annState] = r.state
	a[annGen] = strconv.FormatInt(r.gen, 10)
	delete(a, annSpec)
	delete(a, annTokens)
	if r.state != stateRetired {
		a[annSpec] = r.spec
		if r.tokens.Len() > 0 {
			a[annTokens] = r.tokens.String()
		}
	}
	delete(a, annRetired)
	if r.retired.Gen > 0 {
		a[annRetired] = encodeRetired(r.retired)
	}
}

// sequence is the workerid.Sequence of a live record.
func (r record) sequence() workerid.Sequence {
	return workerid.Sequence{Name: r.name, Spec: r.spec, Gen: r.gen, Retired: r.retired, Tokens: r.tokens}
}

// ValidCluster reports whether name may name a Catalog's cluster: a DNS
// label of 1 to 40 bytes, which the names of its Lease objects begin with.
func ValidCluster(name string) bool { return checkCluster(name) == nil }
