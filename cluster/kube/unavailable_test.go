//go:build unix

package kube_test

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/tlstest"
)

// statusProxy is a reverse proxy in front of the API server that answers
// every request with a status of its choosing while it is set, as an
// overloaded API server (429, with Retry-After) or a load balancer with no
// backend (503) does.
type statusProxy struct {
	srv    *httptest.Server
	status atomic.Int32 // 0: pass requests on
	seen   atomic.Int64 // requests answered with status
}

// newStatusProxy starts a statusProxy on loopback with a certificate of
// the API server's CA, for 127.0.0.1, closed when t ends.
func (e *kubeEnv) newStatusProxy(t *testing.T) *statusProxy {
	t.Helper()
	target := &url.URL{Scheme: "https", Host: e.s.Addr}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{TLSClientConfig: e.s.CA.ClientConfig(pairNone)}
	rp.FlushInterval = -1 // watches stream
	p := &statusProxy{}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code := int(p.status.Load())
		if code == 0 {
			rp.ServeHTTP(w, r)
			return
		}
		p.seen.Add(1)
		if code == http.StatusTooManyRequests {
			// As API Priority and Fairness rejects a request.
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(code)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`)
			return
		}
		// As a load balancer with no backend does.
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		fmt.Fprint(w, "no healthy upstream")
	}))
	serving := e.s.CA.Issue(t, "status-proxy")
	p.srv.TLS = &tls.Config{Certificates: []tls.Certificate{serving.Cert}}
	p.srv.StartTLS()
	t.Cleanup(p.srv.Close)
	return p
}

// set makes the proxy answer every request with code (0: pass them on),
// and closes the connections open, so that a watch open through it ends.
func (p *statusProxy) set(code int) {
	p.status.Store(int32(code))
	p.srv.CloseClientConnections()
}

// addr is the proxy's host:port.
func (p *statusProxy) addr() string { return strings.TrimPrefix(p.srv.URL, "https://") }

// An API server that answers 503 or 429 to every request: floed refuses
// to start, naming the namespace and the status. One that starts doing so
// after the start: the pod behind it stops being ready within its lease's
// TTL and issues nothing until it holds a worker ID again, while a pod that
// reaches the API server serves on; no ID is issued twice.
func TestKube_Unavailable(t *testing.T) {
	e := newKubeEnv(t)
	for _, tt := range []struct {
		code int
		want string // in floed's error at the start
	}{
		{http.StatusServiceUnavailable, "list Leases in namespace %s: the API server answered 503 Service Unavailable"},
		{http.StatusTooManyRequests, "list Leases in namespace %s: the API server is overloaded (429 Too Many Requests)"},
	} {
		t.Run(strconv.Itoa(tt.code), func(t *testing.T) {
			ns := e.namespace(t)
			e.grant(t, ns, ns, nil)
			proxy := e.newStatusProxy(t)

			proxy.set(tt.code)
			start := time.Now()
			got := e.refused(t, podStart{name: e.w.name + "-unavailable-" + safeString(5), token: e.token(t, ns), namespace: ns, addr: proxy.addr()})
			if want := strings.ReplaceAll(tt.want, "%s", ns); !strings.Contains(got, want) {
				t.Errorf("at the start: floed stopped with:\n%s\nwant %q in it", got, want)
			}
			t.Logf("at the start, after %v and %d answers of %d: floed stopped with: %s", time.Since(start).Round(time.Millisecond), proxy.seen.Load(), tt.code, got)

			proxy.set(0)
			e.afterStart(t, ns, proxy, tt.code)
		})
	}
}

// ttl is the pods' FLOE_LEASE_TTL in TestKube_Unavailable: shorter than
// the manifest's 10 s, to keep the test short; nothing else differs.
const ttl = 4 * time.Second

// afterStart runs two pods, one behind the proxy and one not, makes the
// proxy answer code, and checks that the pod behind it stops being ready
// within ttl and issues nothing then, and serves again once the proxy
// passes requests on; all IDs are unique.
func (e *kubeEnv) afterStart(t *testing.T, ns string, proxy *statusProxy, code int) {
	t.Helper()
	env := []string{"FLOE_LEASE_TTL=" + ttl.String()}
	startPod := func(name, addr string) (*floedproc.Proc, *pod) {
		t.Helper()
		st := podStart{name: e.w.name + "-" + name + "-" + safeString(5), token: e.token(t, ns), namespace: ns, addr: addr, env: env}
		exe, penv, args := e.command(t, st)
		proc := floedproc.StartEnv(t, exe, st.name, penv, args...)
		if !proc.WaitReady(30*time.Second, true) {
			t.Fatalf("%s not ready after 30 s:\n%s", st.name, proc.Stderr())
		}
		p, _ := newPod(t, e.w, nil, map[string]string{"metadata.name": st.name})
		return proc, p
	}
	behind, bp := startPod("behind-proxy", proxy.addr())
	direct, dp := startPod("direct", "")
	ids := append(fetchIDs(t, behind, bp), fetchIDs(t, direct, dp)...)

	proxy.set(code)
	faulted := time.Now()
	if !behind.WaitReady(ttl+5*time.Second, false) {
		t.Fatalf("%s still ready %v after the API server began answering %d (TTL %v):\n%s", behind.Name, time.Since(faulted), code, ttl, behind.Stderr())
	}
	t.Logf("%s not ready %v after the API server began answering %d (TTL %v)", behind.Name, time.Since(faulted).Round(time.Millisecond), code, ttl)
	if c, err := floedproc.Dial(behind.Bin, "", 5*time.Second); err == nil {
		got, err := c.Fetch(10)
		c.Close()
		if err == nil {
			t.Errorf("%s not ready issued %d IDs, want none", behind.Name, len(got))
			ids = append(ids, got...)
		}
	}
	if !direct.Ready() {
		t.Errorf("%s, which reaches the API server, not ready", direct.Name)
	}
	ids = append(ids, fetchIDs(t, direct, dp)...)

	proxy.set(0)
	healed := time.Now()
	if !behind.WaitReady(2*ttl+10*time.Second, true) {
		t.Fatalf("%s not ready again %v after the API server answered again:\n%s", behind.Name, time.Since(healed), behind.Stderr())
	}
	t.Logf("%s ready again %v after the API server answered again", behind.Name, time.Since(healed).Round(time.Millisecond))
	ids = append(ids, fetchIDs(t, behind, bp)...)
	ids = append(ids, fetchIDs(t, direct, dp)...)
	if err := floetest.Unique(ids); err != nil {
		t.Errorf("IDs of both pods: %v", err)
	}
	for _, proc := range []*floedproc.Proc{behind, direct} {
		if err := proc.StopWithin(bp.grace); err != nil {
			t.Errorf("SIGTERM: %v", err)
		}
	}
}

// pairNone is no client certificate: the proxy authenticates with the
// pod's bearer token, which it passes on.
var pairNone tlstest.Pair
