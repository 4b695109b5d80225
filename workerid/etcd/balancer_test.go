package etcd

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/balancer"
	"google.golang.org/grpc/balancer/base"
	"google.golang.org/grpc/resolver"
)

// fakeConn is a ready connection to one member.
type fakeConn struct {
	balancer.SubConn
	addr string
}

// fakeBalancer builds pickers over fake connections, on a clock the test
// moves.
type fakeBalancer struct {
	now time.Time
	pb  *pickerBuilder
	p   balancer.Picker
}

func newFakeBalancer(addrs ...string) *fakeBalancer {
	b := &fakeBalancer{now: time.Unix(1000, 0)}
	b.pb = &pickerBuilder{h: newHealth(func() time.Time { return b.now })}
	b.ready(addrs...)
	return b
}

// ready builds a picker over the members at addrs, as the base balancer
// does when the ready connections change.
func (b *fakeBalancer) ready(addrs ...string) {
	scs := make(map[balancer.SubConn]base.SubConnInfo)
	for _, a := range addrs {
		scs[&fakeConn{addr: a}] = base.SubConnInfo{Address: resolver.Address{Addr: a}}
	}
	b.p = b.pb.Build(base.PickerBuildInfo{ReadySCs: scs})
}

const unary = "/etcdserverpb.KV/Txn"

// pick picks a member for method and returns its address and the call's
// end.
func (b *fakeBalancer) pick(t *testing.T, method string) (string, func(balancer.DoneInfo)) {
	t.Helper()
	res, err := b.p.Pick(balancer.PickInfo{FullMethodName: method, Ctx: context.Background()})
	if err != nil {
		t.Fatalf("Pick: %v", err)
	}
	return res.SubConn.(*fakeConn).addr, res.Done
}

// picks picks n unary calls that end at once with a reply, and returns the
// members they went to, sorted and without repeats.
func (b *fakeBalancer) picks(t *testing.T, n int) []string {
	t.Helper()
	seen := map[string]bool{}
	for range n {
		a, done := b.pick(t, unary)
		seen[a] = true
		done(balancer.DoneInfo{BytesReceived: true})
	}
	var got []string
	for a := range seen {
		got = append(got, a)
	}
	slices.Sort(got)
	return got
}

var errDeadline = errors.New("context deadline exceeded")

// callTo picks until a call goes to addr, and returns that call's end;
// the calls to other members end at once with a reply.
func (b *fakeBalancer) callTo(t *testing.T, addr, method string) func(balancer.DoneInfo) {
	t.Helper()
	for range 10 {
		a, done := b.pick(t, method)
		if a == addr {
			return done
		}
		done(balancer.DoneInfo{BytesReceived: true})
	}
	t.Fatalf("no call went to %s in 10 picks", addr)
	return nil
}

func TestPicker(t *testing.T) {
	all := []string{"m1", "m2", "m3"}
	tests := []struct {
		name string
		// run does what happens to m1, and returns the members picked
		// after it.
		run  func(t *testing.T, b *fakeBalancer) []string
		want []string
	}{
		{"every member answering", func(t *testing.T, b *fakeBalancer) []string {
			return b.picks(t, 9)
		}, all},
		{"a call waiting past stallAfter, nothing heard", func(t *testing.T, b *fakeBalancer) []string {
			b.callTo(t, "m1", unary) // never ends
			b.now = b.now.Add(stallAfter)
			return b.picks(t, 9)
		}, []string{"m2", "m3"}},
		{"a call waiting, shorter than stallAfter", func(t *testing.T, b *fakeBalancer) []string {
			b.callTo(t, "m1", unary)
			b.now = b.now.Add(stallAfter - time.Millisecond)
			return b.picks(t, 9)
		}, all},
		{"a call waiting, but a later one answered", func(t *testing.T, b *fakeBalancer) []string {
			b.callTo(t, "m1", unary)
			b.now = b.now.Add(time.Millisecond)
			b.callTo(t, "m1", unary)(balancer.DoneInfo{BytesReceived: true})
			b.now = b.now.Add(stallAfter)
			return b.picks(t, 9)
		}, all},
		{"a stream waiting past stallAfter", func(t *testing.T, b *fakeBalancer) []string {
			b.callTo(t, "m1", "/etcdserverpb.Watch/Watch")
			b.now = b.now.Add(10 * stallAfter)
			return b.picks(t, 9)
		}, all},
		{"a call ended without a reply", func(t *testing.T, b *fakeBalancer) []string {
			end := b.callTo(t, "m1", "/etcdserverpb.Lease/LeaseKeepAlive")
			b.now = b.now.Add(minStall)
			end(balancer.DoneInfo{Err: errDeadline})
			return b.picks(t, 9)
		}, []string{"m2", "m3"}},
		{"a call given up on at once", func(t *testing.T, b *fakeBalancer) []string {
			end := b.callTo(t, "m1", unary)
			b.now = b.now.Add(minStall - time.Millisecond)
			end(balancer.DoneInfo{Err: errDeadline})
			return b.picks(t, 9)
		}, all},
		{"a call ended with an error and a reply", func(t *testing.T, b *fakeBalancer) []string {
			end := b.callTo(t, "m1", unary)
			b.now = b.now.Add(time.Second)
			end(balancer.DoneInfo{Err: errors.New("etcdserver: no leader"), BytesReceived: true})
			return b.picks(t, 9)
		}, all},
		{"set aside, then its cool-down over", func(t *testing.T, b *fakeBalancer) []string {
			b.callTo(t, "m1", unary)
			b.now = b.now.Add(stallAfter)
			b.picks(t, 3)
			b.now = b.now.Add(coolDown)
			return b.picks(t, 9)
		}, all},
		{"set aside twice in a row: a longer cool-down", func(t *testing.T, b *fakeBalancer) []string {
			b.callTo(t, "m1", unary)
			b.now = b.now.Add(stallAfter)
			b.picks(t, 3)
			b.now = b.now.Add(coolDown)
			end := b.callTo(t, "m1", unary)
			b.now = b.now.Add(minStall)
			end(balancer.DoneInfo{Err: errDeadline})
			b.now = b.now.Add(coolDown)
			return b.picks(t, 9)
		}, []string{"m2", "m3"}},
		{"set aside, then connected anew", func(t *testing.T, b *fakeBalancer) []string {
			b.callTo(t, "m1", unary)
			b.now = b.now.Add(stallAfter)
			b.picks(t, 3)
			b.ready("m2", "m3")
			b.ready(all...)
			return b.picks(t, 9)
		}, all},
		{"every member set aside", func(t *testing.T, b *fakeBalancer) []string {
			for _, a := range all {
				end := b.callTo(t, a, unary)
				b.now = b.now.Add(minStall)
				end(balancer.DoneInfo{Err: errDeadline})
			}
			seen := map[string]bool{}
			for range 9 {
				a, _ := b.pick(t, unary) // no reply: all stay aside
				seen[a] = true
			}
			var got []string
			for a := range seen {
				got = append(got, a)
			}
			slices.Sort(got)
			return got
		}, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newFakeBalancer(all...)
			got := tt.run(t, b)
			if !slices.Equal(got, tt.want) {
				t.Errorf("members picked = %v, want %v", got, tt.want)
			}
		})
	}
}
