package server

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// router serves the HTTP API's routes. A ServeMux matches the path; the
// path's route then picks the handler of the method and parses the query.
// Every refusal is the API's JSON error:
//
//   - a path no route has: 404 not_found, whatever the method (CONNECT to
//     a host:port included);
//   - a method the route does not answer: 405 method_not_allowed, with an
//     Allow header. HEAD is answered wherever GET is, by the GET handler,
//     whose body the http.Server does not send;
//   - a malformed query, a parameter the route does not take, or one
//     given twice: 400 bad_request.
//
// A router is built before it serves and is not changed after: it is then
// safe for concurrent use.
type router struct {
	mux    *http.ServeMux
	routes map[string]*route     // by path pattern; immutable once serving
	count  func(op, code string) // counts a request of a metered op
}

// route is one path of the API and what it answers.
type route struct {
	path    string
	methods []method
	allow   string // the Allow header: the methods, HEAD after GET
	count   func(op, code string)
}

// method is how a route answers one HTTP method.
type method struct {
	name   string
	op     string   // the op of floe_requests_total, or "" for a route not metered
	params []string // the query parameters it takes
	h      func(w http.ResponseWriter, r *http.Request, q query)
}

// query holds the parameters of a request as the router parsed them: each
// known to the route and given once, with its value decoded. It is a value,
// so that reading a query allocates nothing.
type query struct {
	names  []string // the route's parameters, at most maxParams
	values [maxParams]string
	given  [maxParams]bool
}

// maxParams is the most query parameters a route takes.
const maxParams = 4

// get returns the value of the parameter name, and whether it was given.
func (q *query) get(name string) (string, bool) {
	i := slices.Index(q.names, name)
	if i < 0 || !q.given[i] {
		return "", false
	}
	return q.values[i], true
}

func newRouter(count func(op, code string)) *router {
	rt := &router{mux: http.NewServeMux(), routes: make(map[string]*route), count: count}
	rt.mux.HandleFunc("/", notFound)
	return rt
}

// handle adds the handler of pattern, "METHOD /path" (the path as for
// http.ServeMux). h takes the query parameters params; op, when not empty,
// names its requests in floe_requests_total.
func (rt *router) handle(pattern, op string, h func(http.ResponseWriter, *http.Request, query), params ...string) {
	name, path, ok := strings.Cut(pattern, " ")
	if !ok || name == "" || name == http.MethodHead {
		panic("server: route pattern " + pattern + ": want a method other than HEAD, a space and a path")
	}
	rr := rt.routes[path]
	if rr == nil {
		rr = &route{path: path, count: rt.count}
		rt.routes[path] = rr
		rt.mux.Handle(path, rr)
	}
	if slices.ContainsFunc(rr.methods, func(m method) bool { return m.name == name }) {
		panic("server: route " + pattern + " added twice")
	}
	if len(params) > maxParams {
		panic("server: route " + pattern + " takes more than maxParams parameters")
	}
	rr.methods = append(rr.methods, method{name: name, op: op, params: params, h: h})
	var allow []string
	for _, m := range rr.methods {
		allow = append(allow, m.name)
		if m.name == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
	}
	rr.allow = strings.Join(allow, ", ")
}

// handleFunc adds a handler that takes no query parameters.
func (rt *router) handleFunc(pattern, op string, h http.HandlerFunc) {
	rt.handle(pattern, op, func(w http.ResponseWriter, r *http.Request, _ query) { h(w, r) })
}

func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.RequestURI == "*" {
		// OPTIONS *, the server as a whole, which answers no method: an
		// http.Server answers it itself (200, no body) unless its
		// DisableGeneralOptionsHandler is set, as floed sets it.
		w.Header().Set("Allow", "")
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "method "+r.Method+" not allowed on *: ask a path")
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/") {
		// CONNECT host:port, which ServeMux answers in plain text.
		notFound(w, r)
		return
	}
	rt.mux.ServeHTTP(w, r)
}

func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, "not_found", "no such path: "+r.Method+" "+r.RequestURI)
}

func (rr *route) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m, ok := rr.method(r.Method)
	if !ok {
		w.Header().Set("Allow", rr.allow)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "method "+r.Method+" not allowed on "+rr.path+": use "+rr.allow)
		return
	}
	q := query{names: m.params}
	if msg := q.parse(r.URL.RawQuery); msg != "" {
		if m.op != "" {
			rr.count(m.op, "bad_request")
		}
		if len(m.params) == 0 {
			msg = rr.path + " takes no query parameters: " + msg
		} else {
			msg = rr.path + " takes " + strings.Join(m.params, ", ") + ": " + msg
		}
		writeError(w, http.StatusBadRequest, "bad_request", msg)
		return
	}
	m.h(w, r, q)
}

// method returns how rr answers the method name: HEAD as GET.
func (rr *route) method(name string) (method, bool) {
	i := slices.IndexFunc(rr.methods, func(m method) bool { return m.name == name })
	if i < 0 && name == http.MethodHead {
		i = slices.IndexFunc(rr.methods, func(m method) bool { return m.name == http.MethodGet })
	}
	if i < 0 {
		return method{}, false
	}
	return rr.methods[i], true
}

// parse reads raw, the query of a URL, strictly: name=value pairs
// separated by '&', each name one of q.names and given at most once, names
// and values percent-encoded (with '+' for a space) as url.QueryUnescape
// reads them. Unlike url.ParseQuery it drops nothing: a pair it cannot
// read fails the whole query, with a message naming the pair.
func (q *query) parse(raw string) string {
	if raw == "" {
		return ""
	}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			return "the query " + strconv.Quote(raw) + " has an empty parameter (two '&' in a row, or one at an end)"
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil {
			return "parameter " + strconv.Quote(pair) + ": " + err.Error()
		}
		i := slices.Index(q.names, name)
		if i < 0 {
			return "unknown parameter " + strconv.Quote(name) + " in " + strconv.Quote(pair)
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			return "parameter " + name + " in " + strconv.Quote(pair) + ": " + err.Error()
		}
		if q.given[i] {
			return "parameter " + name + " given twice: " + strconv.Quote(q.values[i]) + " and " + strconv.Quote(value)
		}
		q.values[i], q.given[i] = value, true
	}
	return ""
}
