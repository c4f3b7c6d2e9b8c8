package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/term"
)

// pager is a command's output to a terminal taller than it fits, shown through $PAGER (less
// when unset and installed; LESS defaults to FRX, as git sets it: quit when it fits, colours,
// no clearing), as gh and git do. In a pipe, with --no-pager, or with PAGER=cat, output goes
// to stdout as it is.
type pager struct {
	cmd *exec.Cmd
	in  io.WriteCloser
}

// startPager starts the pager for lines of output to env's stdout when they do not fit its
// terminal; nil when no pager is wanted or none can be started.
func startPager(env *Env, noPager bool, lines int) *pager {
	f, ok := env.Stdout.(*os.File)
	if noPager || !ok || !term.IsTerminal(f.Fd()) {
		return nil
	}
	if _, rows, err := term.GetSize(f.Fd()); err == nil && lines < rows {
		return nil // it fits: no pager to quit
	}
	line := strings.TrimSpace(env.Getenv("PAGER"))
	switch line {
	case "cat":
		return nil
	case "":
		if _, err := exec.LookPath("less"); err != nil {
			return nil
		}
		line = "less"
	}
	cmd := exec.Command("sh", "-c", line)
	cmd.Stdout, cmd.Stderr = f, env.Stderr
	cmd.Env = pagerEnviron(os.Environ(), env.Getenv("LESS") == "")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(env.Stderr, "exectriage: the pager %q did not start (%v): writing to the terminal\n", line, err)
		return nil
	}
	return &pager{cmd: cmd, in: in}
}

// Write implements io.Writer.
func (p *pager) Write(b []byte) (int, error) { return p.in.Write(b) }

// Close ends the output and waits for the person to quit the pager.
func (p *pager) Close() error {
	p.in.Close()
	return p.cmd.Wait()
}

// quitEarly reports whether err is the pager quit before all was written (not an error).
func quitEarly(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

// pagerEnviron is the pager's environment: only what a pager reads (the path, the terminal,
// the locale, the home and temporary directories, less's own settings), never the API key or
// any other secret the session was given; LESS=FRX when unset.
func pagerEnviron(environ []string, lessUnset bool) []string {
	keep := func(name string) bool {
		switch name {
		case "PATH", "HOME", "TERM", "TERMINFO", "COLORTERM", "COLUMNS", "LINES", "LANG", "TMPDIR", "TZ", "NO_COLOR":
			return true
		}
		return strings.HasPrefix(name, "LC_") || strings.HasPrefix(name, "LESS")
	}
	var out []string
	for _, kv := range environ {
		if name, _, ok := strings.Cut(kv, "="); ok && keep(name) {
			out = append(out, kv)
		}
	}
	if lessUnset {
		out = append(out, "LESS=FRX")
	}
	return out
}
