//go:build !unix

package journal

// signalAlive cannot inspect processes here: the owner's liveness is unknown, so only the
// attempt's deadline can release it.
func signalAlive(pid int) (alive, known bool) { return false, false }
