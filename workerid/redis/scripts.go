package redis

import (
	_ "embed"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// The scripts run by EVALSHA and fall back to EVAL (which caches them
// again) when the server answers NOSCRIPT, after a restart or SCRIPT FLUSH.
// Each file documents its keys, arguments and reply.
//
// Redis runs a script without interruption but does not roll it back: when
// a command fails (an ACL refuses it, the server runs out of memory) or the
// server dies mid-script without AOF, the writes before it stay. So each
// script orders its writes such that any prefix of them leaves a state that
// is safe, and that the same script run again completes:
//
//   - A tick is recorded before anything that could let it be forgotten is
//     deleted: destroy.lua writes the retired generation before it deletes
//     the sequence or a reservation; release.lua writes the last tick
//     before it deletes the owner key.
//   - What makes a holder stop (the sequence gone, the owner key deleted)
//     comes before the cleanup of what it held: reserve.lua and claim.lua
//     check the sequence, so once destroy.lua has deleted it no reservation
//     rises above the retired tick, whatever stays behind.
//   - The count of worker IDs a sequence used (claim.lua sets it first)
//     outlives their keys, so a destroy that stopped after deleting the
//     sequence finds them again and finishes; announcements (PUBLISH) come
//     last, since listeners also poll.
//   - claim.lua takes the owner key before it raises the fence and rewrites
//     the reservation; a claim that stops between them returned no lease,
//     and its owner key expires after the TTL. create.lua numbers the
//     generation before it writes the sequence; a stop between them only
//     skips a number. renew.lua and drop.lua write once.
//
// Every command the scripts run is in scriptCommands; NewSource checks that
// the server's user may run each of them (see CheckACL).
//
// Each script is made (its SHA-1 computed) at its first use: a program that
// links this package but never talks to Redis (floed without --redis) does
// not make them at its start.
var (
	//go:embed claim.lua
	claimSource string
	claimScript = script(&claimSource)

	//go:embed renew.lua
	renewSource string
	renewScript = script(&renewSource)

	//go:embed reserve.lua
	reserveSource string
	reserveScript = script(&reserveSource)

	//go:embed release.lua
	releaseSource string
	releaseScript = script(&releaseSource)

	//go:embed drop.lua
	dropSource string
	dropScript = script(&dropSource)

	//go:embed create.lua
	createSource string
	createScript = script(&createSource)

	//go:embed destroy.lua
	destroySource string
	destroyScript = script(&destroySource)
)

// script returns the script of *src, made at its first call.
func script(src *string) func() *goredis.Script {
	return sync.OnceValue(func() *goredis.Script { return goredis.NewScript(*src) })
}
