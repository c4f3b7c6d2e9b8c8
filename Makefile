# exectriage: the documented entry points. `go run .` works too.
GO      ?= go
PKGS    ?= ./...
BIN     ?= bin/exectriage

.PHONY: build test test-short demo bench bench-5m bench-data lint fuzz soak soak-watch release-snapshot clean man screenshots mutants

build:
	$(GO) build -o $(BIN) .

# The test suite, as CI runs it (race detector on; 5-6 minutes on 2 cores). PostgreSQL tests
# run when EXECTRIAGE_TEST_POSTGRES holds a DSN (scripts/start-postgres.sh prints one), tmux
# tests when tmux is installed, the real-SDK test when node and npm are. The output is
# summarised (tools/testsummary): package results, failed tests in full, and at the end
# every skipped suite with how to run it. `make test-short` is the quick loop (~1 minute).
SHELL := /bin/bash
test:
	$(GO) vet $(PKGS)
	set -o pipefail; $(GO) test -race -count=1 -timeout 30m -json $(PKGS) | $(GO) run ./tools/testsummary

test-short:
	$(GO) test -short -count=1 $(PKGS)

# The TUI on the embedded demo sandbox.
demo:
	$(GO) run . --demo

# The performance suite: one table of each figure, its target, the median of
# BENCH_COUNT runs and pass/fail. Generates bench-data/ first when it is missing (~30 s);
# takes about 4 minutes on 2 cores. BENCH_ONLY=ui,memory runs some sections (filter, ui,
# memory, load, scan, keys, live; scan5m is make bench-5m's; live100k, at Hobby's 2,000 requests
# a minute, and live100kpager, 100k beside the pager, take minutes and run only when named);
# `go test -bench` on a package runs
# its benchmarks alone. Each run's medians are added to bench/history.jsonl and compared with
# the last earlier run of each figure (a change 20% for the worse is marked WORSE): commit the
# file with the change it measured.
BENCH_COUNT ?= 3
BENCH_ONLY ?=
bench:
	$(GO) run ./tools/benchsuite -count $(BENCH_COUNT) -data bench-data -history bench/history.jsonl $(if $(BENCH_ONLY),-only $(BENCH_ONLY))

# The 5M-record scan: generates bench-data/5m.jsonl (5 GB, gitignored, kept for the
# next run; ~2 minutes) and checks that scan stays within 1 GB.
bench-5m:
	$(GO) run ./tools/benchsuite -count 1 -data bench-data -only scan5m

# Seeded JSONL exports of the Logs API (detail shape) for the benchmarks: 10k, 100k and 1M
# executions (~1 GB) in bench-data/ (gitignored). Existing files are kept.
bench-data:
	@for n in 10000:10k 100000:100k 1000000:1m; do \
	  f=bench-data/$${n##*:}.jsonl; test -f $$f || $(GO) run ./tools/benchdata-gen -n $${n%%:*} -seed 1 -o $$f || exit 1; \
	done

# The checks CI runs before the tests: go.mod tidy, gofmt, go vet, staticcheck (installed
# with go install at a pinned version when missing) and go fix (Go 1.26's modernizers).
STATICCHECK_VERSION ?= v0.8.2
lint:
	$(GO) mod tidy -diff
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	@sc=$$($(GO) env GOPATH)/bin/staticcheck; test -x $$sc || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION); $$sc $(PKGS)
	@d=$$($(GO) fix -diff $(PKGS)); if [ -n "$$d" ]; then echo "go fix would change:"; echo "$$d"; exit 1; fi

# Each fuzz target for a while; the corpus it finds is copied into the package's testdata/fuzz,
# where `make test` replays it (commit it).
FUZZTIME ?= 60s
fuzz:
	@set -e; cache=$$($(GO) env GOCACHE)/fuzz; for pkg in $$($(GO) list $(PKGS)); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg; \
	    if [ -d "$$cache/$$pkg/$$f" ]; then mkdir -p "$$dir/testdata/fuzz/$$f"; cp -n "$$cache/$$pkg/$$f"/* "$$dir/testdata/fuzz/$$f/"; fi; \
	  done; done

# Load: the in-process sandbox and the client under 200 concurrent readers on loopback, zero errors
# and no leaked goroutines. EXECTRIAGE_SOAK_DURATION shortens it (default 60s).
soak:
	EXECTRIAGE_SOAK=1 $(GO) test -race -v -run TestSoak -count=1 -timeout 10m ./client/

# Release archives for Linux, macOS and Windows on amd64 and arm64 into dist/, offline: the
# binary stamped with the version and commit, README, man pages, completions, SHA256SUMS.
# A tagged release: go run ./tools/release -version 0.2.0 -out dist
release-snapshot:
	$(GO) run ./tools/release -snapshot -out dist

# The watcher over an hour of sandbox traffic at 10 executions a second: its delay from a
# flagged write to the event, and its CPU and peak memory (make bench runs it for 2 minutes).
soak-watch:
	$(GO) run ./tools/benchsuite -count 1 -only watch -watch-for 1h

# The hand-mutation run of the guard's surroundings (retry/, journal/, client/): every mutant in
# tools/mutants/testdata/mutants.txt is applied to a copy of the tree and must make its packages'
# tests fail; the score goes into docs/mutants.md. Mutants of the shared journal's clock run when
# EXECTRIAGE_TEST_POSTGRES is set (scripts/start-postgres.sh); about 5 minutes on 2 cores.
mutants:
	$(GO) run ./tools/mutants -doc docs/mutants.md

clean:
	rm -rf bin

# The man pages, one per command, from the CLI's own definitions (never edited by hand).
man:
	$(GO) run ./tools/mangen -dir man

# Screenshots of the real binary (tmux + charmbracelet/freeze) into docs/screenshots/ for the
# README; regenerate when the views change.
screenshots:
	GO=$(GO) bash scripts/screenshots.sh
