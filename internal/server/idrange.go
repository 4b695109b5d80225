package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/floeid/floe/id64"
)

// idRange is the reply of /v1/range: the smallest and largest ID of an id64
// layout from one time's tick to another's, for WHERE id BETWEEN first AND
// last. IDs are decimal strings, as everywhere in the API.
type idRange struct {
	Seq    string `json:"seq"`
	Format Format `json:"format"`
	Layout string `json:"layout"`
	First  string `json:"first"`
	Last   string `json:"last"`
	From   string `json:"from"`  // the start of the first tick
	Until  string `json:"until"` // the end of the last tick, excluded
}

// handleRange answers GET /v1/range?time=&to=&seq=&layout=.
func (s *Server) handleRange(w http.ResponseWriter, r *http.Request, q query) {
	seq := s.lookup(w, r, "range", q)
	if seq == nil {
		return
	}
	bad := func(msg string) {
		s.m.httpRequest("range", "bad_request")
		writeError(w, http.StatusBadRequest, "bad_request", msg)
	}
	if seq.format != Format64 {
		bad("range is for id64 sequences only; sequence " + seq.name + " is " + string(seq.format))
		return
	}
	l := seq.sc.Layout
	if l == (id64.Layout{}) {
		l = id64.Twitter
	}
	if text, given := q.get("layout"); given {
		var err error
		if l, err = id64.ParseLayout(text); err != nil {
			bad("layout: " + err.Error())
			return
		}
	}
	v, given := q.get("time")
	if !given {
		bad("time is missing: give the time whose IDs you want, as RFC 3339 (2026-11-22T12:00:00Z) or a date (2026-11-22)")
		return
	}
	from, ok := parseQueryTime(v)
	if !ok {
		bad("time " + strconv.Quote(v) + " is not an RFC 3339 time (2026-11-22T12:00:00Z) or a date (2026-11-22)")
		return
	}
	to := from
	if v, given := q.get("to"); given {
		if to, ok = parseQueryTime(v); !ok {
			bad("to " + strconv.Quote(v) + " is not an RFC 3339 time (2026-11-22T12:00:00Z) or a date (2026-11-22)")
			return
		}
	}
	first, last, err := l.Range(from, to)
	if err != nil {
		bad(err.Error())
		return
	}
	s.m.httpRequest("range", "ok")
	writeJSON(w, http.StatusOK, idRange{
		Seq: seq.name, Format: seq.format, Layout: l.String(),
		First: first.String(), Last: last.String(),
		From:  l.Time(first).UTC().Format(time.RFC3339Nano),
		Until: l.TickTime(l.Parts(last).Tick + 1).UTC().Format(time.RFC3339Nano),
	})
}

// parseQueryTime reads a time of a query: RFC 3339, or a date (midnight
// UTC).
func parseQueryTime(v string) (time.Time, bool) {
	layout := time.RFC3339Nano
	if len(v) == len(time.DateOnly) {
		layout = time.DateOnly
	}
	t, err := time.Parse(layout, v)
	return t, err == nil
}
