package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/logcache"
	"github.com/exectriage/exectriage/redact"
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
	if cacheOffByEnv(o) {
		return false
	}
	return base == "" || !source.Loopback(base)
}

// cacheOffByEnv reports whether EXECTRIAGE_CACHE turns caching off (without --cache).
func cacheOffByEnv(o Options) bool {
	v := strings.ToLower(strings.TrimSpace(o.getenv("EXECTRIAGE_CACHE")))
	return o.Cache != CacheOn && (v == "off" || v == "0" || v == "no")
}

// IndexState is the session's team index (logcache.OpenIndex): where it is, and why it could
// not be opened when it could not (the session then reads the API, through the local cache).
type IndexState struct {
	Where string // its location without a password; "" when none is configured
	Err   error
	c     *logcache.Cache // the open index (the source owns and closes it)
}

// On reports whether the session reads and keeps the logs in the team index.
func (s IndexState) On() bool { return s.Where != "" && s.Err == nil }

// Index is the session's team index.
func (a *App) Index() IndexState { return a.index }

// indexDSN is the team index the session is told to use: --index, else the profile's index,
// else EXECTRIAGE_INDEX ("" for none), as the journal's location is found.
func indexDSN(o Options) string {
	if v := strings.TrimSpace(o.Index); v != "" {
		return v
	}
	return strings.TrimSpace(o.getenv("EXECTRIAGE_INDEX"))
}

// indexProject is the project's name in the team index: the profile's index_project when set
// (a team whose engineers read one project with keys of their own), else the organisation and
// project of a user key, else the key; hashed with the API's base URL (logcache.IndexName).
func indexProject(o Options, base string, creds Credentials) string {
	switch {
	case strings.TrimSpace(o.IndexProject) != "":
		return logcache.IndexName(base, "name\x00"+strings.TrimSpace(o.IndexProject))
	case creds.OrgID != "" && creds.Project != "":
		return logcache.IndexName(base, "project\x00"+creds.OrgID+"\x00"+creds.Project)
	}
	return logcache.IndexName(base, "key\x00"+creds.Key)
}

// openCache opens the team index when one is configured, else the cache of the API at base
// for the session's key; nil when the session does not cache or the cache cannot be opened
// (the API answers then). An index that cannot be opened is said in idx, and the local cache
// serves. A read-only session reads what exists and writes nothing; --no-cache reads the API
// alone, index or not.
func openCache(ctx context.Context, o Options, base string, creds Credentials, idx *IndexState) *logcache.Cache {
	if o.Cache == CacheOff || cacheOffByEnv(o) {
		return nil
	}
	base = cmp.Or(base, client.DefaultBaseURL)
	if dsn := indexDSN(o); dsn != "" {
		idx.Where = redact.Location(dsn)
		c, err := logcache.OpenIndex(ctx, dsn, indexProject(o, base, creds), logcache.Options{ReadOnly: o.ReadOnly})
		if err == nil {
			idx.c = c
			return c
		}
		if errors.Is(err, logcache.ErrNone) {
			err = fmt.Errorf("team index %s: it holds nothing yet (exectriage sync fills it)", idx.Where)
		}
		idx.Err = err
	}
	if !cacheOn(o, base) {
		return nil
	}
	dir, err := logcache.Dir(o.getenv)
	if err != nil {
		return nil
	}
	c, err := logcache.Open(
		ctx,
		filepath.Join(dir, logcache.Name(base, creds.Key+"\x00"+creds.OrgID+"\x00"+creds.Project)),
		logcache.Options{ReadOnly: o.ReadOnly},
	)
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
