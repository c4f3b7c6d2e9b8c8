#!/usr/bin/env bash
# Starts a private PostgreSQL cluster for exectriage's shared-journal tests and prints the line
# that points the tests at it:
#
#   eval "$(scripts/start-postgres.sh)"      # then: go test ./journal/ ./e2e/
#
# It installs the Debian package when PostgreSQL is missing (root only), creates a cluster in
# its own data directory (default /tmp/exectriage-pg), listens on 127.0.0.1 only (port 55432
# by default), trusts local connections (a throwaway test cluster: never use it for real data),
# creates the database exectriage_test and prints
#   export EXECTRIAGE_TEST_POSTGRES=postgres://postgres@127.0.0.1:55432/exectriage_test?sslmode=disable
# Running it again with the cluster up only prints the line. Stop it with
#   scripts/start-postgres.sh stop
# Settings: EXECTRIAGE_PG_DIR (data parent dir), EXECTRIAGE_PG_PORT.
# Everything but the export line goes to stderr.
set -euo pipefail

DIR=${EXECTRIAGE_PG_DIR:-/tmp/exectriage-pg}
PORT=${EXECTRIAGE_PG_PORT:-55432}
DB=exectriage_test
DATA=$DIR/data
LOG=$DIR/server.log

log() { echo "start-postgres: $*" >&2; }

find_bin() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then
		echo "$d"
	fi
}

BIN=$(find_bin)
if [ -z "$BIN" ]; then
	if [ "$(id -u)" != 0 ]; then
		log "PostgreSQL is not installed and this is not root: apt-get install postgresql first"
		exit 1
	fi
	log "installing the Debian postgresql package"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq postgresql >&2
	BIN=$(find_bin)
	if [ -z "$BIN" ]; then
		log "postgresql installed but no initdb under /usr/lib/postgresql/*/bin"
		exit 1
	fi
fi

# PostgreSQL refuses to run as root: as root, run the cluster as the postgres user.
if [ "$(id -u)" = 0 ]; then
	OWNER=postgres
	as_owner() { runuser -u postgres -- "$@"; }
else
	OWNER=$(id -un)
	as_owner() { "$@"; }
fi

if [ "${1:-}" = stop ]; then
	if [ -f "$DATA/postmaster.pid" ]; then
		as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >&2
	fi
	exit 0
fi

if [ ! -d "$DIR" ]; then
	install -d -m 0700 -o "$OWNER" "$DIR"
fi

if [ ! -f "$DATA/PG_VERSION" ]; then
	log "creating a cluster in $DATA"
	as_owner "$BIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >&2 ||
		as_owner "$BIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 >&2
fi

if ! as_owner "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
	log "starting on 127.0.0.1:$PORT (log: $LOG)"
	as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
		-o "-k $DIR -p $PORT -c listen_addresses=127.0.0.1 -c max_connections=200" start >&2
fi

if ! as_owner "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -tAc \
	"SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
	as_owner "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres "$DB" >&2
fi

echo "export EXECTRIAGE_TEST_POSTGRES='postgres://postgres@127.0.0.1:$PORT/$DB?sslmode=disable'"
