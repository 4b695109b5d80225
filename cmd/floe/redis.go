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

	goredis "github.com/redis/go-redis/v9"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/redisgen"
)

// quietRedis drops go-redis's log lines.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

func redisUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: floe redis init "+synopses["redis init"])
	fmt.Fprintln(w, "       floe redis get "+synopses["redis get"])
	fmt.Fprintln(w, `Run "floe redis init -h" or "floe redis get -h" for their flags.`)
}

// runRedis runs "floe redis init" and "floe redis get".
func runRedis(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "init" && args[0] != "get") {
		if len(args) > 0 {
			switch args[0] {
			case "-h", "-help", "--help", "help":
				redisUsage(stderr)
				return flag.ErrHelp
			}
			fmt.Fprintf(stderr, "floe redis: unknown command %q\n", args[0])
		}
		redisUsage(stderr)
		return errUsage
	}
	// go-redis would print its own lines to stderr (a failed dial, in its
	// format), besides the error it returns, which floe prints.
	goredis.SetLogger(quietRedis{})
	fs := newFlagSet("redis "+args[0], stderr)
	addr := fs.String("addr", "127.0.0.1:6379", "Redis address; for get, a comma-separated list")
	password := fs.String("password", os.Getenv("FLOE_REDIS_PASSWORD"), "Redis password (default $FLOE_REDIS_PASSWORD)")
	username := fs.String("username", "", "Redis ACL user (default: the default user)")
	prefix := fs.String("prefix", "floe:redisgen:", "key prefix")
	layoutName := fs.String("layout", "", "id64 layout: "+id64.LayoutHelp+" (default redisgen)")
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
	if err := parseNoArgs(fs, args[1:]); err != nil {
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
			switch {
			case errors.Is(err, redisgen.ErrShardSet):
				err = fmt.Errorf("%w\n(run again with --force to replace it)", err)
			case errors.Is(err, redisgen.ErrBadShard):
				err = fmt.Errorf("--shard %d: %w", *shard, err)
			}
			return err
		}
		fmt.Fprintf(stdout, "%s: shard %d\n", *addr, *shard)
		var nd *redisgen.NotDurableError
		switch err := redisgen.CheckDurable(ctx, *addr, opts...); {
		case errors.As(err, &nd):
			fmt.Fprintf(stderr, "floe redis: warning: %v\n", err)
		case err != nil:
			fmt.Fprintf(stderr, "floe redis: warning: %v (redisgen is restart-safe only with appendonly yes and appendfsync always)\n", err)
		}
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
