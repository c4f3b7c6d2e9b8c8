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
//  1. the owner ran on this host, in this boot and in this PID namespace, and its process no
//     longer exists (same pid with a different start time, or a zombie, counts as gone: the pid
//     was reused or the process is dead); two containers may share a host name, and a pid
//     means nothing in another namespace, so an owner from another namespace (or one recorded
//     without its namespace) is never proven gone this way, or
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
	// Start distinguishes this process from a later one with the same pid, and says where
	// the pid means something: "bootid|pidns|starttime" on Linux (the boot id, the PID
	// namespace's identity and the process start time), "" where that is not available.
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
// from here: another host, another boot or PID namespace (a container with the same host
// name), an owner recorded without its namespace, or no way to inspect processes.
func Alive(owner Owner) (alive, known bool) {
	host, _ := os.Hostname()
	if owner.Host == "" || owner.Host != host || owner.PID <= 0 {
		return false, false
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		boot, ns := namespace("self")
		parts := strings.Split(owner.Start, "|")
		if boot == "" || ns == "" || len(parts) != 3 || parts[0] != boot || parts[1] != ns {
			return false, false // the pid may belong to another namespace: not provably gone
		}
		start := processStart(owner.PID)
		if start == "" {
			return false, true // no such process in this namespace, or a zombie
		}
		if start != owner.Start {
			return false, true // the pid now belongs to another process
		}
		return true, true
	}
	return signalAlive(owner.PID)
}

// namespace returns the boot id and the PID namespace of a process (a pid, or "self") as
// /proc shows them; "" for what cannot be read.
func namespace(pid string) (boot, ns string) {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	ns, _ = os.Readlink("/proc/" + pid + "/ns/pid")
	return strings.TrimSpace(string(b)), ns
}

// processStart returns "bootid|pidns|starttime" for a live (non-zombie) process on Linux, ""
// when the process does not exist, /proc is not available or its namespace cannot be read.
func processStart(pid int) string {
	p := strconv.Itoa(pid)
	b, err := os.ReadFile("/proc/" + p + "/stat")
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
	boot, ns := namespace(p)
	if boot == "" || ns == "" {
		return ""
	}
	return boot + "|" + ns + "|" + f[19]
}
