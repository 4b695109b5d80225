package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/floeid/floe/client"
	"github.com/floeid/floe/id64"
)

// runGet runs "floe get": it fetches IDs from floed (or noeqd) daemons over
// the noeq binary protocol, failing over between the addresses given.
func runGet(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("get", stderr)
	n := fs.Int("n", 1, "number of IDs")
	addr := fs.String("addr", "127.0.0.1:4444", "daemon addresses, comma-separated host:port; the client fails over between them")
	token := fs.String("token", "", "auth token (default $FLOE_TOKEN, else $NOEQ_TOKEN)")
	timeout := fs.Duration("timeout", 5*time.Second, "time limit for the whole command")
	out := fs.String("o", "text", "output: text (one decimal ID per line) or json (an array of strings)")
	layout := fs.String("layout", "twitter", "layout of the IDs the daemons issue (of the sequence the token selects), by which a reply's time is checked: "+id64.LayoutHelp)
	var tf tlsFlags
	tf.register(fs)
	maxSkew := fs.Duration("max-skew", 10*time.Minute, "reject IDs whose time lies further than this `duration` from the local clock, ahead or behind: they are not IDs from a live daemon of -layout")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("-n %d: want a count of 0 or more", *n)
	}
	if *out != "text" && *out != "json" {
		return fmt.Errorf("-o %q: want text or json", *out)
	}
	l, err := parseLayoutFlag("-layout", *layout)
	if err != nil {
		return err
	}
	if *maxSkew <= 0 {
		return fmt.Errorf("-max-skew %v: want a duration above 0", *maxSkew)
	}
	// The token's default is read here rather than given to the flag, so
	// that -h does not print it.
	tokenSet := false
	fs.Visit(func(f *flag.Flag) { tokenSet = tokenSet || f.Name == "token" })
	if !tokenSet {
		*token = getTokenFromEnv()
	}
	var addrs []string
	for a := range strings.SplitSeq(*addr, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	tlsCfg, err := tf.config()
	if err != nil {
		return err
	}
	opts := []client.Option{client.WithLayout(l), client.WithMaxSkew(*maxSkew), client.WithTLS(tlsCfg)}
	if *token != "" {
		opts = append(opts, client.WithToken(*token))
	}
	c, err := client.New(addrs, opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	ids := make([]id64.ID, *n)
	got, err := c.NextN(ctx, ids)
	switch {
	case errors.Is(err, client.ErrShortReply):
		err = fmt.Errorf("%w\n(a daemon closes the connection on a wrong or missing token, and on errors of its own: see its log)", err)
	case errors.Is(err, client.ErrInvalidReply):
		err = fmt.Errorf("%w\n(-addr must name the binary port of floed or noeqd, 4444 by default, not its HTTP port; -layout the layout of the sequence it serves; a daemon whose clock is further off needs a larger -max-skew)", err)
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	if *out == "json" {
		if err != nil {
			return err // no partial array: it would read as a complete one
		}
		return json.NewEncoder(w).Encode(ids)
	}
	var line []byte
	for _, id := range ids[:got] {
		line = append(strconv.AppendUint(line[:0], uint64(id), 10), '\n')
		w.Write(line)
	}
	return err
}

// getTokenFromEnv returns $FLOE_TOKEN, else $NOEQ_TOKEN, the variables the
// daemons read.
func getTokenFromEnv() string {
	if t := os.Getenv("FLOE_TOKEN"); t != "" {
		return t
	}
	return os.Getenv("NOEQ_TOKEN")
}
