package journal

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Crash recovery rule
//
// An attempt left in intent or sent may belong to a process that crashed, or to one that is
// still sending right now (another window on the same SQLite file, another engineer on the
// shared PostgreSQL journal). Turning a live attempt into indeterminate would let a person
// resolve it as failed while its request is still in flight, and a second retry would then
// duplicate the effect. So RecoverOpen turns intent or sent into indeterminate only when the
// owner is provably gone:
//
//  1. the owner ran on this host and its process no longer exists (same pid with a different
//     start time, or a zombie, counts as gone: the pid was reused or the process is dead), or
//  2. the attempt's deadline has passed: its request's write timeout plus a margin, after which
//     the owner's request has certainly ended, so the owner either recorded the outcome or died.
//
// An attempt whose owner runs on another host and whose deadline has not passed stays open;
// it blocks retries of its execution as any open attempt does, and the journal shows who
// holds it and until when. Clock skew between hosts is covered by the margin.

// Owner identifies the process that claimed an attempt.
type Owner struct {
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// Start distinguishes this process from a later one with the same pid: the boot id and the
	// process start time on Linux, "" where that is not available.
	Start string `json:"start,omitempty"`
}

func (o Owner) String() string {
	return fmt.Sprintf("pid %d on %s", o.PID, o.Host)
}

// CurrentOwner is this process.
func CurrentOwner() Owner {
	host, _ := os.Hostname()
	pid := os.Getpid()
	return Owner{Host: host, PID: pid, Start: processStart(pid)}
}

// Alive reports whether owner's process still runs. known is false when that cannot be told
// from here (another host, or no way to inspect processes).
func Alive(owner Owner) (alive, known bool) {
	host, _ := os.Hostname()
	if owner.Host == "" || owner.Host != host || owner.PID <= 0 {
		return false, false
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		start := processStart(owner.PID)
		if start == "" {
			return false, true // no such process, or a zombie
		}
		if owner.Start != "" && start != owner.Start {
			return false, true // the pid now belongs to another process
		}
		return true, true
	}
	return signalAlive(owner.PID)
}

// processStart returns "bootid:starttime" for a live (non-zombie) process on Linux, "" when
// the process does not exist or /proc is not available.
func processStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	// The command name (field 2) is in parentheses and may hold spaces; fields after it are
	// space separated, starting with field 3 (state). Field 22 is the start time.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	if f[0] == "Z" || f[0] == "X" || f[0] == "x" {
		return ""
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(boot)) + ":" + f[19]
}
