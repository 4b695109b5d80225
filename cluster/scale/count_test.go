package scale_test

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// counts are the etcd requests one client sent, by what the worker-ID
// source sends them for (see workerid/etcd's documentation of its keys
// and transactions).
type counts struct {
	grants     atomic.Int64 // lease grants: one per claim
	keepalives atomic.Int64 // KeepAliveOnce: one per lease per TTL/3
	revokes    atomic.Int64 // lease revocations
	claims     atomic.Int64 // transactions putting an owner key: claim attempts
	lostClaims atomic.Int64 // of which refused: the ID was taken since the read
	reserves   atomic.Int64 // transactions putting a reservation only: Reserve
	releases   atomic.Int64 // transactions deleting an owner key: Release
	otherTxns  atomic.Int64 // other transactions: the catalog's, the read of the held IDs
	gets       atomic.Int64 // plain reads: the catalog's
	kvsRead    atomic.Int64 // keys returned by reads and transactions

	// The time spent waiting for etcd's answers, in nanoseconds.
	grantWait, claimWait, reserveWait, otherWait atomic.Int64
}

// tally is a plain copy of counts, for arithmetic.
type tally struct {
	grants, keepalives, revokes, claims, lostClaims, reserves, releases, otherTxns, gets, kvsRead int64
	grantWait, claimWait, reserveWait, otherWait                                                  time.Duration
}

func (c *counts) load() tally {
	return tally{
		grants: c.grants.Load(), keepalives: c.keepalives.Load(), revokes: c.revokes.Load(),
		claims: c.claims.Load(), lostClaims: c.lostClaims.Load(), reserves: c.reserves.Load(),
		releases: c.releases.Load(), otherTxns: c.otherTxns.Load(), gets: c.gets.Load(),
		kvsRead:   c.kvsRead.Load(),
		grantWait: time.Duration(c.grantWait.Load()), claimWait: time.Duration(c.claimWait.Load()),
		reserveWait: time.Duration(c.reserveWait.Load()), otherWait: time.Duration(c.otherWait.Load()),
	}
}

func (a tally) add(b tally) tally {
	return tally{
		grants: a.grants + b.grants, keepalives: a.keepalives + b.keepalives, revokes: a.revokes + b.revokes,
		claims: a.claims + b.claims, lostClaims: a.lostClaims + b.lostClaims, reserves: a.reserves + b.reserves,
		releases: a.releases + b.releases, otherTxns: a.otherTxns + b.otherTxns, gets: a.gets + b.gets,
		kvsRead:   a.kvsRead + b.kvsRead,
		grantWait: a.grantWait + b.grantWait, claimWait: a.claimWait + b.claimWait,
		reserveWait: a.reserveWait + b.reserveWait, otherWait: a.otherWait + b.otherWait,
	}
}

func (a tally) sub(b tally) tally {
	return tally{
		grants: a.grants - b.grants, keepalives: a.keepalives - b.keepalives, revokes: a.revokes - b.revokes,
		claims: a.claims - b.claims, lostClaims: a.lostClaims - b.lostClaims, reserves: a.reserves - b.reserves,
		releases: a.releases - b.releases, otherTxns: a.otherTxns - b.otherTxns, gets: a.gets - b.gets,
		kvsRead:   a.kvsRead - b.kvsRead,
		grantWait: a.grantWait - b.grantWait, claimWait: a.claimWait - b.claimWait,
		reserveWait: a.reserveWait - b.reserveWait, otherWait: a.otherWait - b.otherWait,
	}
}

// requests is every request counted.
func (a tally) requests() int64 {
	return a.grants + a.keepalives + a.revokes + a.claims + a.reserves + a.releases + a.otherTxns + a.gets
}

// count makes cli count its KV and Lease requests in c. Call it before
// the client is shared.
func count(cli *clientv3.Client, c *counts) {
	cli.KV = countingKV{cli.KV, c}
	cli.Lease = countingLease{cli.Lease, c}
}

type countingKV struct {
	clientv3.KV
	c *counts
}

func (k countingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	k.c.gets.Add(1)
	resp, err := k.KV.Get(ctx, key, opts...)
	if err == nil {
		k.c.kvsRead.Add(int64(len(resp.Kvs)))
	}
	return resp, err
}

func (k countingKV) Txn(ctx context.Context) clientv3.Txn {
	return &countingTxn{txn: k.KV.Txn(ctx), c: k.c}
}

// countingTxn classifies a transaction by its Then operations when it is
// committed.
type countingTxn struct {
	txn  clientv3.Txn
	c    *counts
	then []clientv3.Op
}

func (t *countingTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	t.txn = t.txn.If(cs...)
	return t
}

func (t *countingTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	t.then = append(t.then, ops...)
	t.txn = t.txn.Then(ops...)
	return t
}

func (t *countingTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.txn = t.txn.Else(ops...)
	return t
}

func (t *countingTxn) Commit() (*clientv3.TxnResponse, error) {
	var putsOwner, putsReserved, deletesOwner bool
	for _, op := range t.then {
		key := string(op.KeyBytes())
		switch {
		case op.IsPut() && strings.Contains(key, "/workers/"):
			putsOwner = true
		case op.IsPut() && strings.Contains(key, "/reserved/"):
			putsReserved = true
		case op.IsDelete() && strings.Contains(key, "/workers/"):
			deletesOwner = true
		}
	}
	began := time.Now()
	resp, err := t.txn.Commit()
	took := int64(time.Since(began))
	if err == nil {
		for _, r := range resp.Responses {
			t.c.kvsRead.Add(int64(len(r.GetResponseRange().GetKvs())))
		}
	}
	switch {
	case putsOwner:
		t.c.claims.Add(1)
		t.c.claimWait.Add(took)
		if err == nil && !resp.Succeeded {
			t.c.lostClaims.Add(1)
		}
	case deletesOwner:
		t.c.releases.Add(1)
	case putsReserved:
		t.c.reserves.Add(1)
		t.c.reserveWait.Add(took)
	default:
		t.c.otherTxns.Add(1)
		t.c.otherWait.Add(took)
	}
	return resp, err
}

type countingLease struct {
	clientv3.Lease
	c *counts
}

func (l countingLease) Grant(ctx context.Context, ttl int64) (*clientv3.LeaseGrantResponse, error) {
	l.c.grants.Add(1)
	began := time.Now()
	resp, err := l.Lease.Grant(ctx, ttl)
	l.c.grantWait.Add(int64(time.Since(began)))
	return resp, err
}

func (l countingLease) Revoke(ctx context.Context, id clientv3.LeaseID) (*clientv3.LeaseRevokeResponse, error) {
	l.c.revokes.Add(1)
	return l.Lease.Revoke(ctx, id)
}

func (l countingLease) KeepAliveOnce(ctx context.Context, id clientv3.LeaseID) (*clientv3.LeaseKeepAliveResponse, error) {
	l.c.keepalives.Add(1)
	return l.Lease.KeepAliveOnce(ctx, id)
}
