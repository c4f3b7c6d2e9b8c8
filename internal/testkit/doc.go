// Package testkit holds what the tests of several packages share: one golden-file helper, one
// sandbox starter, a PostgreSQL schema of a test's own, readers of the sandbox's control
// endpoints, a fake browser, and a consumer of a load that hands its batches back; its
// packages perfbench and benchdata hold the benchmarks' measures and data. Only tests, the
// benchmarks and the programs under tools/ import it.
package testkit
