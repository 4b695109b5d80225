package workeridtest_test

import (
	"fmt"
	"testing"

	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

// The test doubles behave as the real Sources and Catalogs do.

func TestMemSource(t *testing.T) {
	for _, ids := range []int{1, 4} {
		t.Run(fmt.Sprintf("ids=%d", ids), func(t *testing.T) {
			var ns *workeridtest.MemSource // the namespace of the running test
			workeridtest.Run(t, workeridtest.Config{
				IDs: ids,
				Namespace: func(t *testing.T) func() workerid.Source {
					ns = workeridtest.NewMemSource(ids)
					return func() workerid.Source { return ns }
				},
				Lose: func(t *testing.T, l workerid.Lease) { ns.Lose(l.ID()) },
			})
		})
	}
}

func TestMemCatalog(t *testing.T) {
	var cat *workeridtest.MemCatalog // the catalog of the running test
	workeridtest.RunCatalog(t, func(t *testing.T) func() workerid.Catalog {
		cat = workeridtest.NewMemCatalog(4)
		return func() workerid.Catalog { return cat }
	}, func(t *testing.T, seq workerid.Sequence) workerid.Source {
		src, err := cat.Source(seq)
		if err != nil {
			t.Fatal(err)
		}
		return src
	})
}
