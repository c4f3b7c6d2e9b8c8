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
# When the port is taken by something else, it tries the next ones (up to 55471) unless
# EXECTRIAGE_PG_PORT names one: a shared machine's busy port must not fail the run.
# Running it again with the cluster up only prints the line (with the port that cluster listens
# on). Stop it with
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

# running_port prints the port of the cluster already running from $DATA, if any: a second
# server on the same data directory cannot start, and the running one serves as well.
running_port() {
	local pid port
	[ -f "$DATA/postmaster.pid" ] || return 1
	pid=$(sed -n 1p "$DATA/postmaster.pid" 2>/dev/null || true)
	port=$(sed -n 4p "$DATA/postmaster.pid" 2>/dev/null || true)
	[ -n "$pid" ] && [ -n "$port" ] && kill -0 "$pid" 2>/dev/null || return 1
	as_owner "$BIN/pg_isready" -q -h 127.0.0.1 -p "$port" || return 1
	echo "$port"
}

if RUNNING=$(running_port); then
	PORT=$RUNNING
	log "cluster in $DATA already runs on 127.0.0.1:$PORT"
else
	if [ -n "${EXECTRIAGE_PG_PORT:-}" ]; then
		CANDIDATES=$PORT
	else
		CANDIDATES=$(seq 55432 55471)
	fi
	STARTED=
	for p in $CANDIDATES; do
		if as_owner "$BIN/pg_isready" -q -h 127.0.0.1 -p "$p"; then
			log "127.0.0.1:$p is another server's: trying the next port"
			continue
		fi
		log "starting on 127.0.0.1:$p (log: $LOG)"
		SEEN=$({ wc -l <"$LOG"; } 2>/dev/null || echo 0)
		if as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
			-o "-k $DIR -p $p -c listen_addresses=127.0.0.1 -c max_connections=200" start >&2; then
			PORT=$p
			STARTED=1
			break
		fi
		if tail -n +"$((SEEN + 1))" "$LOG" 2>/dev/null | grep -q 'could not bind\|Address already in use\|could not create any TCP/IP sockets'; then
			log "127.0.0.1:$p is in use: trying the next port"
			continue
		fi
		log "PostgreSQL did not start; the end of $LOG:"
		tail -n 20 "$LOG" >&2 || true
		exit 1
	done
	if [ -z "$STARTED" ]; then
		log "no free port among: $(echo $CANDIDATES)"
		exit 1
	fi
fi

if ! as_owner "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -tAc \
	"SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
	as_owner "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres "$DB" >&2
fi

echo "export EXECTRIAGE_TEST_POSTGRES='postgres://postgres@127.0.0.1:$PORT/$DB?sslmode=disable'"
