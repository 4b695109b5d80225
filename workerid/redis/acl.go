package redis

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

//go:embed acl.lua
var aclSource string

var aclScript = script(&aclSource)

// ErrPermission: the server's ACL refuses the client's user a command, key
// or channel the Source or Catalog needs; a *PermissionError lists them.
var ErrPermission = errors.New("floe: redis user lacks a permission")

// PermissionError reports the commands the Redis user may not run. It
// matches ErrPermission.
type PermissionError struct {
	Addr    string   // the server's address
	User    string   // the ACL user ("default" when the client names none)
	Missing []string // each refused command, with the ACL rule it needs
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("floe: redis %s: user %q %s", e.Addr, e.User, strings.Join(e.Missing, "; "))
}

// Unwrap returns ErrPermission.
func (e *PermissionError) Unwrap() error { return ErrPermission }

// aclCommand is one command the scripts or the Catalog run, in a form
// redis.acl_check_cmd accepts: the real key or channel, harmless values.
type aclCommand struct {
	args    []string // the command and its arguments
	key     string   // the key it checks, if any
	channel string   // the channel it checks, if any
}

// scriptCommands returns every command a Source under prefix runs but
// Check's, with the Catalog's when seq is set. Each script's commands are here; a test
// checks that the list covers every redis.call of every script.
func scriptCommands(prefix string, seq *seqRef) []aclCommand {
	w := prefix + "workers/0"
	cmds := []aclCommand{
		{args: []string{"evalsha", claimScript().Hash(), "0"}},
		{args: []string{"eval", "return 1", "0"}},
		{args: []string{"get", w}, key: w},
		{args: []string{"set", w, "v", "PX", "1"}, key: w},
		{args: []string{"del", w}, key: w},
		{args: []string{"exists", w}, key: w},
		{args: []string{"incr", w}, key: w},
		{args: []string{"pexpire", w, "1"}, key: w},
	}
	if seq != nil {
		for _, h := range []string{seq.hash, seq.retired} {
			cmds = append(cmds,
				aclCommand{args: []string{"hget", h, "f"}, key: h},
				aclCommand{args: []string{"hset", h, "f", "v"}, key: h},
				aclCommand{args: []string{"hdel", h, "f"}, key: h},
			)
		}
		cmds = append(cmds,
			aclCommand{args: []string{"hgetall", seq.hash}, key: seq.hash},
			aclCommand{args: []string{"publish", seq.channel, "x"}, channel: seq.channel},
			aclCommand{args: []string{"subscribe", seq.channel}, channel: seq.channel},
		)
	}
	return cmds
}

// CheckACL reports whether the user of rdb may run every command a Source
// under prefix runs (its scripts; Check's INFO and CONFIG GET are Check's
// to report) and, when
// catalog is set, every command of the Catalog under that prefix (its
// scripts, reads, and the channel Destroy publishes to). It asks the
// server's ACL from inside a script with redis.acl_check_cmd, which needs
// no permission beyond EVAL (ACL DRYRUN and ACL WHOAMI need @admin, which a
// user limited to floe's commands lacks), so nothing is run to find out.
// It returns a *PermissionError naming each refused command and the rule
// that grants it, nil when all are permitted or the server is older than
// Redis 7.0 (it cannot tell then), or the error that kept it from asking.
//
// NewSource runs it, so floed and applications of package sequencer refuse
// to start under an ACL that would refuse a script halfway.
func CheckACL(ctx context.Context, rdb *goredis.Client, prefix string, catalog bool) error {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	var seq *seqRef
	if catalog {
		c := NewCatalog(rdb, prefix)
		seq = &seqRef{hash: c.hashKey(), retired: c.retiredKey(), channel: c.channel()}
	}
	_, err := checkACL(ctx, rdb, prefix, seq)
	return err
}

// checkACL runs CheckACL's check; ok is false when the server cannot tell.
func checkACL(ctx context.Context, rdb *goredis.Client, prefix string, seq *seqRef) (ok bool, err error) {
	opts := rdb.Options()
	user := opts.Username
	if user == "" {
		user = "default"
	}
	cmds := scriptCommands(prefix, seq)
	var argv []any
	for _, c := range cmds {
		argv = append(argv, len(c.args))
		for _, a := range c.args {
			argv = append(argv, a)
		}
	}
	reply, err := await(ctx, func(ctx context.Context) (any, error) {
		return aclScript().Run(ctx, rdb, nil, argv...).Result()
	})
	if err != nil {
		if isRedisError(err) && strings.HasPrefix(err.Error(), "NOPERM") {
			return false, &PermissionError{Addr: opts.Addr, User: user,
				Missing: []string{fmt.Sprintf("may not run EVAL (%v): add +eval and +evalsha to its ACL", err)}}
		}
		return false, fmt.Errorf("floe: redis %s: checking the permissions of user %q: %w", opts.Addr, user, err)
	}
	if n, isInt := reply.(int64); isInt && n == -1 {
		return false, nil
	}
	got, isList := reply.([]any)
	if !isList || len(got) != len(cmds) {
		return false, fmt.Errorf("%w: the permission check answered %v", ErrBadReply, reply)
	}
	var missing []string
	for i, c := range cmds {
		switch v, _ := got[i].(int64); v {
		case 1:
		case 2:
			missing = append(missing, fmt.Sprintf("cannot run %s: the server has no such command (renamed or disabled)", strings.ToUpper(c.args[0])))
		default:
			missing = append(missing, c.missing())
		}
	}
	if len(missing) > 0 {
		return false, &PermissionError{Addr: opts.Addr, User: user, Missing: missing}
	}
	return true, nil
}

// missing describes a refused command and the rules that grant it.
func (c aclCommand) missing() string {
	name := strings.ToUpper(c.args[0])
	rule := "+" + c.args[0]
	switch {
	case c.key != "":
		return fmt.Sprintf("may not run %s on key %s: add %s and ~%s to its ACL", name, c.key, rule, pattern(c.key))
	case c.channel != "":
		return fmt.Sprintf("may not run %s on channel %s: add %s and &%s to its ACL", name, c.channel, rule, pattern(c.channel))
	}
	return fmt.Sprintf("may not run %s: add %s to its ACL", name, rule)
}

// pattern returns an ACL pattern for a key or channel: its first path
// segment and "/*" ("floe/*" for "floe/v1/ids/sequences").
func pattern(name string) string {
	if head, _, ok := strings.Cut(name, "/"); ok {
		return head + "/*"
	}
	return name
}
