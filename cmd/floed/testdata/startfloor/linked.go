//go:build linked

package main

// Built with -tags linked, startfloor links the packages floed links, so
// their initializers run at its start; it uses none of them.
import (
	_ "github.com/prometheus/client_golang/prometheus/collectors"
	_ "go.etcd.io/etcd/client/v3"
	_ "go.uber.org/zap"

	_ "github.com/floeid/floe/internal/server"
	_ "github.com/floeid/floe/internal/statefile"
	_ "github.com/floeid/floe/workerid/etcd"
	_ "github.com/floeid/floe/workerid/kube"
	_ "github.com/floeid/floe/workerid/redis"
)
