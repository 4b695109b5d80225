package etcd

import (
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestNewSource(t *testing.T) {
	// The client never connects: NewSource only validates.
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	tests := []struct {
		name    string
		cli     *clientv3.Client
		cfg     Config
		want    error
		ttl     time.Duration
		timeout time.Duration
	}{
		{name: "defaults", cli: cli, cfg: Config{Prefix: "/f/", IDs: 1}, ttl: 10 * time.Second, timeout: 10 * time.Second / 3},
		{name: "ttl rounded up", cli: cli, cfg: Config{Prefix: "/f/", IDs: 1, TTL: 1500 * time.Millisecond}, ttl: 2 * time.Second, timeout: 2 * time.Second / 3},
		{name: "own timeout", cli: cli, cfg: Config{Prefix: "/f/", IDs: 1, TTL: time.Second, RequestTimeout: time.Second}, ttl: time.Second, timeout: time.Second},
		{name: "no client", cfg: Config{Prefix: "/f/", IDs: 1}, want: ErrNoClient},
		{name: "no prefix", cli: cli, cfg: Config{IDs: 1}, want: ErrPrefix},
		{name: "prefix without slash", cli: cli, cfg: Config{Prefix: "/f", IDs: 1}, want: ErrPrefix},
		{name: "no IDs", cli: cli, cfg: Config{Prefix: "/f/"}, want: ErrIDs},
		{name: "ttl below a second", cli: cli, cfg: Config{Prefix: "/f/", IDs: 1, TTL: 999 * time.Millisecond}, want: ErrTTL},
		{name: "negative timeout", cli: cli, cfg: Config{Prefix: "/f/", IDs: 1, RequestTimeout: -1}, want: ErrRequestTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSource(tt.cli, tt.cfg)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("NewSource: %v, want %v", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.ttl != tt.ttl || s.cfg.RequestTimeout != tt.timeout {
				t.Errorf("ttl %v, timeout %v; want %v, %v", s.ttl, s.cfg.RequestTimeout, tt.ttl, tt.timeout)
			}
			if s.cfg.Owner == "" || s.cfg.Clock == nil || s.cfg.Logger == nil {
				t.Errorf("defaults not applied: %+v", s.cfg)
			}
		})
	}
}

func TestSource_ParseID(t *testing.T) {
	s := &Source{cfg: Config{Prefix: "/f/", IDs: 10}}
	tests := []struct {
		key  string
		want int
	}{
		{"/f/workers/0", 0},
		{"/f/workers/9", 9},
		{"/f/workers/10", -1},
		{"/f/workers/-1", -1},
		{"/f/workers/01", -1},
		{"/f/workers/+1", -1},
		{"/f/workers/", -1},
		{"/g/workers/1", -1},
	}
	for _, tt := range tests {
		if got := s.parseID([]byte(tt.key), "/f/workers/"); got != tt.want {
			t.Errorf("parseID(%q) = %d, want %d", tt.key, got, tt.want)
		}
	}
}
