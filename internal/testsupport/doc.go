// Package testsupport holds helpers shared by the tests of several packages (journal, retry,
// e2e, app, source): a PostgreSQL schema of a test's own, readers of the sandbox's control
// endpoints, and a consumer of a load that hands its batches back.
// Only tests import it.
package testsupport
