// Package sqlitero says how to open a SQLite file for reading only without creating anything
// beside it: the journal's and the cache's read-only opens share it.
package sqlitero

import (
	"net/url"
	"os"
)

// Set adds to q the parameters of a read-only open of path. mode=ro alone makes SQLite create
// the -wal and -shm files of a WAL database beside it (and fail on read-only media), so:
//   - when both exist (another process has the file open in WAL mode), mode=ro reads its recent
//     writes through them and creates nothing;
//   - otherwise every write is in the file itself (a WAL database closed cleanly has been
//     checkpointed), and immutable=1 reads it with no side file and no lock.
func Set(q url.Values, path string) {
	q.Set("mode", "ro")
	if exists(path+"-wal") && exists(path+"-shm") {
		return
	}
	q.Set("immutable", "1")
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
