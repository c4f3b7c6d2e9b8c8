package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/logcache"
	"github.com/exectriage/exectriage/source"
)

// CacheMode says whether a session keeps the live API's logs between runs.
type CacheMode string

const (
	CacheAuto CacheMode = ""    // a remote API's, not a loopback one's
	CacheOn   CacheMode = "on"  // --cache
	CacheOff  CacheMode = "off" // --no-cache
)

// cacheOn reports whether the session caches the API at base.
func cacheOn(o Options, base string) bool {
	switch o.Cache {
	case CacheOn:
		return true
	case CacheOff:
		return false
	}
	if v := strings.ToLower(o.getenv("EXECTRIAGE_CACHE")); v == "off" || v == "0" || v == "no" {
		return false
	}
	return base == "" || !source.Loopback(base)
}

// openCache opens the cache of the API at base for the session's key, nil when the session
// does not cache or the cache cannot be opened (the API answers then). A read-only session
// reads a cache that exists and writes nothing.
func openCache(ctx context.Context, o Options, base string, creds Credentials) *logcache.Cache {
	if !cacheOn(o, base) {
		return nil
	}
	if base == "" {
		base = client.DefaultBaseURL
	}
	dir, err := logcache.Dir(o.getenv)
	if err != nil {
		return nil
	}
	c, err := logcache.Open(ctx, filepath.Join(dir, logcache.Name(base, creds.Key+"\x00"+creds.OrgID+"\x00"+creds.Project)), logcache.Options{ReadOnly: o.ReadOnly})
	if err != nil {
		return nil
	}
	return c
}

// CacheInfo describes every cache file in the user's cache directory.
func CacheInfo(ctx context.Context, getenv func(string) string) (dir string, infos []logcache.Info, err error) {
	if dir, err = logcache.Dir(getenv); err != nil {
		return "", nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "logs-*.db"))
	if err != nil {
		return dir, nil, err
	}
	for _, f := range files {
		c, err := logcache.Open(ctx, f, logcache.Options{ReadOnly: true})
		if err != nil {
			return dir, infos, fmt.Errorf("%s: %w", f, err)
		}
		in, err := c.Stat(ctx)
		c.Close()
		if err != nil {
			return dir, infos, fmt.Errorf("%s: %w", f, err)
		}
		infos = append(infos, in)
	}
	return dir, infos, nil
}

// ClearCache removes every cache file (and its WAL) from the user's cache directory and says
// how many it removed.
func ClearCache(getenv func(string) string) (dir string, n int, err error) {
	if dir, err = logcache.Dir(getenv); err != nil {
		return "", 0, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "logs-*.db"))
	if err != nil {
		return dir, 0, err
	}
	for _, f := range files {
		for _, p := range []string{f, f + "-wal", f + "-shm"} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return dir, n, err
			}
		}
		n++
	}
	return dir, n, nil
}
