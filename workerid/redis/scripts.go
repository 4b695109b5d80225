package redis

import (
	_ "embed"

	goredis "github.com/redis/go-redis/v9"
)

// The scripts run by EVALSHA and fall back to EVAL (which caches them
// again) when the server answers NOSCRIPT, after a restart or SCRIPT FLUSH.
// Each file documents its keys, arguments and reply.
var (
	//go:embed claim.lua
	claimSource string
	claimScript = goredis.NewScript(claimSource)

	//go:embed renew.lua
	renewSource string
	renewScript = goredis.NewScript(renewSource)

	//go:embed reserve.lua
	reserveSource string
	reserveScript = goredis.NewScript(reserveSource)

	//go:embed release.lua
	releaseSource string
	releaseScript = goredis.NewScript(releaseSource)

	//go:embed drop.lua
	dropSource string
	dropScript = goredis.NewScript(dropSource)

	//go:embed create.lua
	createSource string
	createScript = goredis.NewScript(createSource)

	//go:embed destroy.lua
	destroySource string
	destroyScript = goredis.NewScript(destroySource)
)
