package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/floeid/floe/redisgen"
)

// runRedis runs "floe redis init" and "floe redis get".
func runRedis(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "init" && args[0] != "get") {
		fmt.Fprintln(stderr, "usage: floe redis init --shard N --addr host:port [flags]")
		fmt.Fprintln(stderr, "       floe redis get [-n count] --addr host:port,... [flags]")
		return errUsage
	}
	fs := newFlagSet("redis "+args[0], stderr)
	addr := fs.String("addr", "127.0.0.1:6379", "Redis address; for get, a comma-separated list")
	password := fs.String("password", os.Getenv("FLOE_REDIS_PASSWORD"), "Redis password (default $FLOE_REDIS_PASSWORD)")
	username := fs.String("username", "", "Redis ACL user (default: the default user)")
	prefix := fs.String("prefix", "floe:redisgen:", "key prefix")
	layoutName := fs.String("layout", "", "id64 layout: "+layoutUsage+" (default redisgen)")
	timeout := fs.Duration("timeout", 5*time.Second, "time limit for the whole command")
	var shard *uint64
	var force *bool
	var n *int
	if args[0] == "init" {
		shard = fs.Uint64("shard", 0, "this server's shard ID (required)")
		force = fs.Bool("force", false, "replace a different shard ID already set")
	} else {
		n = fs.Int("n", 1, "number of IDs")
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	opts := []redisgen.Option{redisgen.WithKeyPrefix(*prefix), redisgen.WithAuth(*username, *password)}
	if *layoutName != "" {
		l, err := parseLayoutFlag("-layout", *layoutName)
		if err != nil {
			return err
		}
		opts = append(opts, redisgen.WithLayout(l))
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	if args[0] == "init" {
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "shard" })
		if !set {
			return errors.New("--shard is required")
		}
		if err := redisgen.Init(ctx, *addr, *shard, *force, opts...); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: shard %d\n", *addr, *shard)
		return nil
	}

	if *n < 0 {
		return fmt.Errorf("-n %d: want a count of 0 or more", *n)
	}
	c, err := redisgen.New(ctx, strings.Split(*addr, ","), opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	ids, err := c.NextN(ctx, *n)
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	for _, id := range ids {
		fmt.Fprintln(w, id)
	}
	return err
}
