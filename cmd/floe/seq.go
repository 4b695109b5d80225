package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
)

// runSeq runs "floe seq create", "floe seq list" and "floe seq destroy":
// they define, list and remove a cluster's named sequences through the
// admin API of one floed.
func runSeq(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "create":
			return runSeqCreate(args[1:], stdout, stderr)
		case "list":
			return runSeqList(args[1:], stdout, stderr)
		case "destroy":
			return runSeqDestroy(args[1:], stdout, stderr)
		case "-h", "--help", "help":
			seqUsage(stderr)
			return flag.ErrHelp
		}
		fmt.Fprintf(stderr, "floe seq: unknown command %q\n", args[0])
	}
	seqUsage(stderr)
	return errUsage
}

func seqUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: floe seq create [-addr URL] [-token T] [-format id64|id80|id96|id128] [-layout name] [-token-file FILE] NAME")
	fmt.Fprintln(w, "       floe seq list [-addr URL] [-token T] [-o text|json]")
	fmt.Fprintln(w, "       floe seq destroy [-addr URL] [-token T] -yes NAME")
}

// seqInfo is a sequence as GET /v1/admin/sequences lists it.
type seqInfo struct {
	Name     string `json:"name"`
	Spec     string `json:"spec"`
	Gen      int64  `json:"gen"`
	Attached bool   `json:"attached"`         // whether the node asked serves it
	WorkerID int    `json:"worker_id"`        // the node's worker ID for it, -1 when none
	Ready    bool   `json:"ready"`            // whether the node can issue its IDs now
	Reason   string `json:"reason,omitempty"` // why not, when the node has the sequence and is not ready
	Tokens   int    `json:"tokens"`           // how many tokens the catalog gives it
}

// createRequest is the body of POST /v1/admin/sequences: the token's
// SHA-256, never the token, goes to the catalog.
type createRequest struct {
	Name        string   `json:"name"`
	Format      string   `json:"format"`
	Layout      string   `json:"layout,omitempty"`
	TokenSHA256 []string `json:"token_sha256,omitempty"`
}

// createReply is the reply to POST /v1/admin/sequences.
type createReply struct {
	Name   string `json:"name"`
	Spec   string `json:"spec"`
	Gen    int64  `json:"gen"`
	Tokens int    `json:"tokens"`
}

// readTokenFile reads a sequence's token from path: the file's bytes
// without one trailing newline (\n or \r\n), 1 to 255 of them (the auth
// frame's length byte). It returns the token's SHA-256 in hex; its errors
// never repeat the token.
func readTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("-token-file: %w", err)
	}
	token := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if len(token) == 0 || len(token) > 255 {
		return "", fmt.Errorf("-token-file %s: want a token of 1 to 255 bytes (a trailing newline aside), not %d", path, len(token))
	}
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:]), nil
}

func runSeqCreate(args []string, stdout, stderr io.Writer) error {
	var af adminFlags
	fs := newAdminFlagSet("seq create", "[-addr URL] [-token T] [-format id64|id80|id96|id128] [-layout name] [-token-file FILE] NAME", &af, stderr)
	format := fs.String("format", "id64", "ID `format`: id64, id80, id96 or id128")
	layout := fs.String("layout", "", "id64 `layout` (default twitter; id64 only): "+id64.LayoutHelp)
	tokenFile := fs.String("token-file", "", "a `file` holding the sequence's token (1 to 255 bytes, a trailing newline aside): binary clients select the sequence with it on every node that attaches it, and HTTP requests for it need it; only its SHA-256 is sent and stored")
	name, err := parseNameArgs(fs, args, stderr)
	if err != nil {
		return err
	}
	req := createRequest{Name: name, Format: *format, Layout: *layout}
	if *tokenFile != "" {
		hash, err := readTokenFile(*tokenFile)
		if err != nil {
			return err
		}
		req.TokenSHA256 = []string{hash}
	}
	c, err := af.client(fs)
	if err != nil {
		return err
	}
	var reply createReply
	status, err := c.do(http.MethodPost, "/v1/admin/sequences", req, &reply)
	if err != nil {
		return err
	}
	what := "exists"
	if status == http.StatusCreated {
		what = "created"
	}
	tokens := ""
	switch reply.Tokens {
	case 0:
	case 1:
		tokens = ", 1 token"
	default:
		tokens = fmt.Sprintf(", %d tokens", reply.Tokens)
	}
	fmt.Fprintf(stdout, "%s: %s (gen %d): %s%s\n", orName(reply.Name, name), what, reply.Gen, describeSpec(reply.Spec), tokens)
	if what == "created" {
		fmt.Fprintf(stdout, "%s: no node serves it until attached: floe node attach %s, on each node (-addr) that is to serve it\n", orName(reply.Name, name), orName(reply.Name, name))
	}
	return nil
}

func runSeqList(args []string, stdout, stderr io.Writer) error {
	var af adminFlags
	fs := newAdminFlagSet("seq list", "[-addr URL] [-token T] [-o text|json]", &af, stderr)
	out := fs.String("o", "text", "`output`: text (a table) or json ({\"sequences\": [...]}, as the admin API)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "floe seq list: unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		fs.Usage()
		return errUsage
	}
	if *out != "text" && *out != "json" {
		return fmt.Errorf("-o %q: want text or json", *out)
	}
	c, err := af.client(fs)
	if err != nil {
		return err
	}
	var reply struct {
		Sequences []seqInfo `json:"sequences"`
	}
	if _, err := c.do(http.MethodGet, "/v1/admin/sequences", nil, &reply); err != nil {
		return err
	}
	if reply.Sequences == nil {
		reply.Sequences = []seqInfo{}
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	if *out == "json" {
		return json.NewEncoder(w).Encode(reply)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDEFINITION\tGEN\tATTACHED\tWORKER\tREADY")
	for _, s := range reply.Sequences {
		worker := "-"
		if s.WorkerID >= 0 {
			worker = strconv.Itoa(s.WorkerID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", printable(s.Name), describeSpec(s.Spec), s.Gen, yesNo(s.Attached), worker, yesNo(s.Ready))
	}
	return tw.Flush()
}

func runSeqDestroy(args []string, stdout, stderr io.Writer) error {
	var af adminFlags
	fs := newAdminFlagSet("seq destroy", "[-addr URL] [-token T] -yes NAME", &af, stderr)
	yes := fs.Bool("yes", false, "confirm the destruction, which is cluster-wide")
	name, err := parseNameArgs(fs, args, stderr)
	if err != nil {
		return err
	}
	if !*yes {
		fmt.Fprintf(stderr, "floe seq destroy: destroy is cluster-wide: every node stops serving %s, and its worker IDs and reservations are dropped.\nRun again with -yes to destroy it.\n", name)
		return errUsage
	}
	path, err := sequencePath(name, "")
	if err != nil {
		return err
	}
	c, err := af.client(fs)
	if err != nil {
		return err
	}
	if _, err := c.do(http.MethodDelete, path, nil, nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: destroyed\n", name)
	return nil
}

// describeSpec returns a sequence's definition, given as the catalog's
// spec (JSON), in a line a person reads: the format and, for id64, the
// layout's preset name, or the layout itself when it is no preset. A spec
// that does not parse is shown as it is.
func describeSpec(spec string) string {
	d, err := sequencer.ParseSpec(spec)
	if err != nil {
		return printable(spec)
	}
	if d.Format != sequencer.Format64 {
		return string(d.Format)
	}
	if name := presetName(d.Layout); name != "" {
		return "id64 " + name
	}
	return "id64 " + d.Layout.String()
}

// presetName returns the name under which id64.LayoutByName gives l, or ""
// when l is no preset. A name LayoutByName does not know is passed over.
func presetName(l id64.Layout) string {
	names := []string{"twitter", "icicle", "icicle2", "instagram", "discord", "redisgen"}
	if nodes := l.MaxNode() + 1; nodes <= 1<<16 {
		names = append(names, "snowcast-"+strconv.FormatUint(nodes, 10))
	}
	for _, name := range names {
		p, err := id64.LayoutByName(name)
		if err != nil || !p.Epoch.Equal(l.Epoch) {
			continue
		}
		p.Epoch = l.Epoch
		if p == l {
			return name
		}
	}
	return ""
}

// orName returns name, or def when name is empty.
func orName(name, def string) string {
	if name == "" {
		return def
	}
	return name
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// printable returns s, quoted when it holds control characters, which
// would break a line or a table.
func printable(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return strconv.Quote(s)
	}
	return s
}
