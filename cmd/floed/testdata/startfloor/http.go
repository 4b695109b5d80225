//go:build http

package main

import (
	"net"
	"net/http"
	"strconv"
)

func init() {
	serveHTTP = func(l net.Listener) {
		http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"seq":"default","format":"id64","ids":["` + strconv.FormatUint(next(), 10) + `"]}`))
		}))
	}
}
