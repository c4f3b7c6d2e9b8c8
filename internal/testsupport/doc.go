// Package testsupport holds helpers shared by the tests of several packages (journal, retry,
// e2e): a PostgreSQL schema of a test's own, and readers of the sandbox's control endpoints.
// Only tests import it.
package testsupport
