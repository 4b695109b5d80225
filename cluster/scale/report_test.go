package scale_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// percentile returns the nearest-rank p-th percentile of ds (0 < p <= 100),
// or 0 for none. It sorts ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(float64(len(ds))*p/100+0.999999) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

func TestPercentile(t *testing.T) {
	millis := func(ns ...int) []time.Duration {
		var ds []time.Duration
		for _, n := range ns {
			ds = append(ds, time.Duration(n)*time.Millisecond)
		}
		return ds
	}
	var hundred []time.Duration // 100 ms down to 1 ms
	for i := 100; i >= 1; i-- {
		hundred = append(hundred, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		name string
		ds   []time.Duration
		p    float64
		want time.Duration
	}{
		{"none", nil, 50, 0},
		{"one", millis(7), 99, 7 * time.Millisecond},
		{"the median of an odd count", millis(5, 1, 3), 50, 3 * time.Millisecond},
		{"the median of an even count is the lower", millis(4, 1, 3, 2), 50, 2 * time.Millisecond},
		{"p99 of a hundred", hundred, 99, 99 * time.Millisecond},
		{"the maximum", millis(3, 9, 1), 100, 9 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentile(tc.ds, tc.p); got != tc.want {
				t.Errorf("percentile(p%v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
}

// serverCounters reads etcd's own counters from the process's Prometheus
// registry, where the embedded members register. The members share it, so
// a counter every member increments (puts, applied transactions) is the
// sum over the members, and the lease renewals are the leader's.
func serverCounters(t *testing.T) map[string]float64 {
	t.Helper()
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatalf("reading etcd's metrics: %v", err)
	}
	want := map[string]bool{
		"etcd_debugging_lease_renewed_total": true,
		"etcd_debugging_lease_granted_total": true,
		"etcd_mvcc_put_total":                true,
		"etcd_mvcc_txn_total":                true,
		"etcd_mvcc_range_total":              true,
	}
	got := make(map[string]float64)
	for _, mf := range mfs {
		if !want[mf.GetName()] {
			continue
		}
		for _, m := range mf.GetMetric() {
			switch {
			case m.GetCounter() != nil:
				got[mf.GetName()] += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				got[mf.GetName()] += m.GetGauge().GetValue()
			}
		}
	}
	return got
}

// table writes rows of tab-separated cells aligned, for t.Log.
type table struct {
	b strings.Builder
	w *tabwriter.Writer
}

func newTable(title string) *table {
	tb := &table{}
	tb.b.WriteString(title + "\n")
	tb.w = tabwriter.NewWriter(&tb.b, 0, 0, 2, ' ', 0)
	return tb
}

func (tb *table) row(cells ...any) {
	for i, c := range cells {
		if i > 0 {
			fmt.Fprint(tb.w, "\t")
		}
		fmt.Fprint(tb.w, c)
	}
	fmt.Fprintln(tb.w)
}

func (tb *table) String() string {
	tb.w.Flush()
	return tb.b.String()
}

// ms formats d in milliseconds with one decimal.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
