package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// defaultAdminAddr is floed's default HTTP listener, where the admin API
// lives.
const defaultAdminAddr = "http://127.0.0.1:4445"

// adminTimeout bounds each admin request, connection included: every
// admin call is one short request, and a daemon that has not answered in
// 10 s is better reported than waited for.
const adminTimeout = 10 * time.Second

// adminFlags holds the flags every admin subcommand has.
type adminFlags struct {
	addr, token string
	tls         tlsFlags
}

// register adds -addr and -token to fs. Their environment defaults are read
// by client, after parsing, so that -h does not print the token.
func (f *adminFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "addr", "", "floed's HTTP address: a `URL`, or host:port (default $FLOE_ADMIN_ADDR, else "+defaultAdminAddr+")")
	fs.StringVar(&f.token, "token", "", "admin `token` (default $FLOE_ADMIN_TOKEN)")
	f.tls.register(fs)
}

// client returns an adminClient for the flags parsed into fs, falling back
// to $FLOE_ADMIN_ADDR and $FLOE_ADMIN_TOKEN for flags not given.
func (f *adminFlags) client(fs *flag.FlagSet) (*adminClient, error) {
	addrSet, tokenSet := false, false
	fs.Visit(func(fl *flag.Flag) {
		addrSet = addrSet || fl.Name == "addr"
		tokenSet = tokenSet || fl.Name == "token"
	})
	addr, token := f.addr, f.token
	if !addrSet {
		addr = os.Getenv("FLOE_ADMIN_ADDR")
		if addr == "" {
			addr = defaultAdminAddr
		}
	}
	if !tokenSet {
		token = os.Getenv("FLOE_ADMIN_TOKEN")
	}
	cfg, err := f.tls.config()
	if err != nil {
		return nil, err
	}
	if cfg != nil && !strings.Contains(addr, "://") {
		addr = "https://" + addr
	} else if cfg != nil && strings.HasPrefix(addr, "http://") {
		addr = "https://" + strings.TrimPrefix(addr, "http://")
	}
	c, err := newAdminClient(addr, token)
	if err == nil && cfg != nil {
		c.hc.Transport = &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}
	}
	return c, err
}

// adminClient calls the admin API of one floed, under /v1/admin/.
type adminClient struct {
	base  string       // immutable: scheme://host[:port][/prefix], no trailing slash
	token string       // immutable; sent as a bearer token when not empty
	hc    *http.Client // immutable
}

// newAdminClient returns a client for the daemon at addr: an http or https
// URL, or host:port for plain HTTP.
func newAdminClient(addr, token string) (*adminClient, error) {
	raw := strings.TrimSpace(addr)
	if raw == "" {
		return nil, errors.New("-addr: no address given")
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("-addr %q: want host:port or an http(s) URL: %v", addr, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("-addr %q: scheme %q: want http or https", addr, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("-addr %q: no host", addr)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("-addr %q: want host:port or an http(s) URL, without user, query or fragment", addr)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return &adminClient{base: u.String(), token: token, hc: &http.Client{Timeout: adminTimeout}}, nil
}

// adminError is an error reply of the admin API: its JSON body
// {"error": "...", "code": "..."}, or the status when the body is not that.
type adminError struct {
	Status int    // HTTP status
	Msg    string // the "error" field, or the start of a body that is not JSON
	Code   string // the "code" field; empty when the body is not JSON
}

func (e *adminError) Error() string {
	if e.Code == "" {
		return e.Msg
	}
	return e.Msg + " (" + e.Code + ")"
}

// do sends a request with method to path (below the base address) and, for
// a 2xx reply with a body, decodes its JSON into out. in, when not nil, is
// sent as JSON. do returns the reply's status; a status of 400 or more is
// an *adminError.
func (c *adminClient) do(method, path string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			if uerr.Timeout() {
				return 0, fmt.Errorf("floed at %s: no reply within %v", c.base, c.hc.Timeout)
			}
			err = uerr.Err
		}
		return 0, fmt.Errorf("cannot reach floed at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	// Replies are small; more than this is not floed's admin API.
	const maxReply = 4 << 20
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("floed at %s: reading the reply: %w", c.base, err)
	}
	if resp.StatusCode >= 400 {
		return resp.StatusCode, c.replyError(resp, b)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return resp.StatusCode, nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return resp.StatusCode, fmt.Errorf("floed at %s: %s %s: reply is not the admin API's JSON: %v", c.base, method, path, err)
	}
	return resp.StatusCode, nil
}

// replyError turns an error reply into an *adminError, with a hint when a
// token is wanted and none was given.
func (c *adminClient) replyError(resp *http.Response, body []byte) error {
	e := &adminError{Status: resp.StatusCode}
	var reply struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	if json.Unmarshal(body, &reply) == nil && reply.Error != "" {
		e.Msg, e.Code = reply.Error, reply.Code
	} else {
		// Not floed's JSON: a proxy's page, or a daemon without the admin API.
		e.Msg = fmt.Sprintf("floed at %s: %s", c.base, resp.Status)
		if text := strings.TrimSpace(string(body)); text != "" {
			if len(text) > 200 {
				text = text[:200] + "..."
			}
			e.Msg += ": " + text
		}
	}
	if resp.StatusCode == http.StatusUnauthorized && c.token == "" {
		return fmt.Errorf("%w\n(floed requires an admin token: give -token or set $FLOE_ADMIN_TOKEN)", e)
	}
	return e
}

// newAdminFlagSet returns the FlagSet of "floe <name>", whose usage starts
// with synopsis, with -addr and -token registered into af.
func newAdminFlagSet(name, synopsis string, af *adminFlags, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet(name, stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: floe %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	af.register(fs)
	return fs
}

// sequencePath is the admin path of the named sequence, with rest appended.
// The names "." and ".." cannot be in a path: the server's router resolves
// them as path segments, so the request would be redirected to another path
// and address no sequence (a 404 not_found or 405 method_not_allowed).
func sequencePath(name, rest string) (string, error) {
	if name == "." || name == ".." {
		return "", fmt.Errorf("sequence name %q: not addressable in floed's admin API (its router resolves it as a URL path segment)", name)
	}
	return "/v1/admin/sequences/" + url.PathEscape(name) + rest, nil
}

// parseNameArgs parses args into fs, allowing flags both before and after
// the one positional argument, a sequence name, which it returns. An empty
// name is no name.
func parseNameArgs(fs *flag.FlagSet, args []string, stderr io.Writer) (string, error) {
	if err := parseFlags(fs, args); err != nil {
		return "", err
	}
	var names []string
	for fs.NArg() > 0 {
		names = append(names, fs.Arg(0))
		if err := parseFlags(fs, fs.Args()[1:]); err != nil {
			return "", err
		}
	}
	if len(names) != 1 || names[0] == "" {
		if len(names) <= 1 {
			fmt.Fprintf(stderr, "%s: a sequence name is required\n", fs.Name())
		} else {
			fmt.Fprintf(stderr, "%s: want one sequence name, not %d: %s\n", fs.Name(), len(names), strings.Join(names, " "))
		}
		fs.Usage()
		return "", errUsage
	}
	return names[0], nil
}
