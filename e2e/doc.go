// Package e2e holds end-to-end tests of the real exectriage binary: TestMain builds it once,
// the tests serve a sandbox from the test process (so the sandbox, and its count of requests
// and effects, outlives each run of the binary), kill the binary with SIGKILL at each step of
// the retry protocol (through the EXECTRIAGE_TEST_PAUSE hook), race eight copies of it on one
// journal (SQLite, and PostgreSQL when EXECTRIAGE_TEST_POSTGRES is set), and check what
// actually reached the provider. It has no code of its own.
package e2e
