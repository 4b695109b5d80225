package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/floeid/floe/workerid/etcd"
	"github.com/floeid/floe/workerid/redis"
)

// secFlag is one of the coordinator's TLS or authentication flags, for the
// checks that name it.
type secFlag struct {
	name string // with its dashes
	set  bool
}

// loadCoordSecurity checks the coordinator's TLS and authentication flags,
// reads the password files and the certificates, and builds the TLS
// configurations. A file it cannot read, a certificate without its key and
// a flag of a coordinator not in use are errors naming the flag.
func (c *Config) loadCoordSecurity() error {
	etcdFlags := []secFlag{
		{"--etcd-ca", c.EtcdCA != ""}, {"--etcd-cert", c.EtcdCert != ""}, {"--etcd-key", c.EtcdKey != ""},
		{"--etcd-user", c.EtcdUser != ""}, {"--etcd-password", c.EtcdPassword != ""}, {"--etcd-password-file", c.EtcdPasswordFile != ""},
	}
	redisFlags := []secFlag{
		{"--redis-tls", c.RedisTLS}, {"--redis-ca", c.RedisCA != ""}, {"--redis-cert", c.RedisCert != ""}, {"--redis-key", c.RedisKey != ""},
		{"--redis-user", c.RedisUser != ""}, {"--redis-password", c.RedisPassword != ""}, {"--redis-password-file", c.RedisPasswordFile != ""},
	}
	if err := unused(etcdFlags, len(c.Etcd) > 0, "--etcd"); err != nil {
		return err
	}
	if err := unused(redisFlags, c.Redis != "", "--redis"); err != nil {
		return err
	}
	kubeFlags := []secFlag{{"--kubeconfig", c.Kubeconfig != ""}, {"--kube-namespace", c.KubeNamespace != ""}}
	if err := unused(kubeFlags, c.Kube, "--kube"); err != nil {
		return err
	}

	var err error
	if c.EtcdPassword, err = password("--etcd-password", c.EtcdPassword, "--etcd-password-file", c.EtcdPasswordFile); err != nil {
		return err
	}
	switch {
	case c.EtcdUser != "" && c.EtcdPassword == "":
		return fmt.Errorf("--etcd-user %q without --etcd-password or --etcd-password-file", c.EtcdUser)
	case c.EtcdUser == "" && c.EtcdPassword != "":
		return errors.New("--etcd-password or --etcd-password-file without --etcd-user: etcd has no default user")
	}
	if c.RedisPassword, err = password("--redis-password", c.RedisPassword, "--redis-password-file", c.RedisPasswordFile); err != nil {
		return err
	}
	if c.RedisUser != "" && c.RedisPassword == "" {
		return fmt.Errorf("--redis-user %q without --redis-password or --redis-password-file", c.RedisUser)
	}

	if c.etcdTLS, err = loadTLS("etcd", c.EtcdCA, c.EtcdCert, c.EtcdKey, false); err != nil {
		return err
	}
	if c.etcdTLS != nil {
		for _, ep := range c.Etcd {
			if strings.HasPrefix(ep, "http://") {
				return fmt.Errorf("--etcd %q: %q is plain http://, which takes no TLS: with --etcd-ca, --etcd-cert or --etcd-key use https:// or host:port", strings.Join(c.Etcd, ","), ep)
			}
		}
	}
	if c.redisTLS, err = loadTLS("redis", c.RedisCA, c.RedisCert, c.RedisKey, c.RedisTLS); err != nil {
		return err
	}
	return nil
}

// unused returns an error naming the first of flags that is set while the
// coordinator flag is not.
func unused(flags []secFlag, inUse bool, coord string) error {
	if inUse {
		return nil
	}
	for _, f := range flags {
		if f.set {
			return fmt.Errorf("%s without %s", f.name, coord)
		}
	}
	return nil
}

// password returns the password given by flag (value) or by fileFlag (the
// file's content without its trailing newline); both is an error.
func password(flag, value, fileFlag, file string) (string, error) {
	if file == "" {
		return value, nil
	}
	if value != "" {
		return "", fmt.Errorf("%s and %s: give the password one way", flag, fileFlag)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s: %w", fileFlag, err)
	}
	p := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if p == "" {
		return "", fmt.Errorf("%s %s: the file is empty", fileFlag, file)
	}
	return p, nil
}

// loadTLS returns the TLS configuration of the coordinator named coord
// ("etcd" or "redis", its flags' prefix) from its adapter's TLSConfig: it
// trusts the certificates in the file ca (else the system's) and presents
// the client certificate in cert with its key in key. It returns nil, for
// plain TCP, when none of them is given and on is false. A file it cannot
// use is an error naming its flag.
func loadTLS(coord, ca, cert, key string, on bool) (*tls.Config, error) {
	if ca == "" && cert == "" && key == "" && !on {
		return nil, nil
	}
	switch {
	case cert != "" && key == "":
		return nil, fmt.Errorf("--%s-cert without --%s-key", coord, coord)
	case key != "" && cert == "":
		return nil, fmt.Errorf("--%s-key without --%s-cert", coord, coord)
	}
	var cfg *tls.Config
	var field string // the TLSFiles field of a file that failed
	var ferr error
	var err error
	if coord == "etcd" {
		cfg, err = etcd.TLSConfig(etcd.TLSFiles{CA: ca, Cert: cert, Key: key})
		if fe, ok := errors.AsType[*etcd.TLSFileError](err); ok {
			field, ferr = fe.Field, fe.Err
		}
	} else {
		cfg, err = redis.TLSConfig(redis.TLSFiles{CA: ca, Cert: cert, Key: key})
		if fe, ok := errors.AsType[*redis.TLSFileError](err); ok {
			field, ferr = fe.Field, fe.Err
		}
	}
	switch field {
	case "":
		return cfg, err
	case "Cert and Key":
		return nil, fmt.Errorf("--%s-cert and --%s-key: %w", coord, coord, ferr)
	}
	return nil, fmt.Errorf("--%s-%s: %w", coord, strings.ToLower(field), ferr)
}
