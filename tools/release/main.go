// Command release builds exectriage's release archives offline, as goreleaser would: one per
// target (Linux, macOS and Windows on amd64 and arm64 by default), each holding the binary
// (stamped with the version and the commit), the README, the man pages and the shell
// completions, and a SHA256SUMS file beside them.
//
//	go run ./tools/release -version 0.2.0 -out dist            # a release
//	go run ./tools/release -snapshot -out dist                 # make release-snapshot
//	go run ./tools/release -snapshot -targets linux/amd64 -out /tmp/d
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// defaultTargets are the platforms a release is built for.
const defaultTargets = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64"

const pkg = "github.com/exectriage/exectriage/cli"

// options are a release build's choices.
type options struct {
	version  string
	snapshot bool
	out      string
	targets  []string
	root     string // the module's directory
}

func main() {
	var o options
	var targets string
	flag.StringVar(&o.version, "version", "", "the release's version (e.g. 0.2.0); with -snapshot, default <dev version>-SNAPSHOT-<commit>")
	flag.BoolVar(&o.snapshot, "snapshot", false, "a snapshot: not a tagged release (the version says so)")
	flag.StringVar(&o.out, "out", "dist", "the directory the archives and SHA256SUMS go to (emptied first)")
	flag.StringVar(&targets, "targets", defaultTargets, "GOOS/GOARCH pairs, comma-separated")
	flag.Parse()
	o.targets = strings.Split(targets, ",")
	o.root = "."
	if err := run(context.Background(), o, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// run builds every target's archive into o.out and writes SHA256SUMS.
func run(ctx context.Context, o options, log io.Writer) error {
	commit := gitCommit(ctx, o.root)
	if o.version == "" {
		if !o.snapshot {
			return errors.New("-version is required for a release (or give -snapshot)")
		}
		o.version = devVersion(o.root) + "-SNAPSHOT-" + short(commit)
	}
	o.version = strings.TrimPrefix(o.version, "v")
	if err := os.RemoveAll(o.out); err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "exectriage-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	// The completions come from a binary of this machine's own platform.
	host := filepath.Join(work, "host", "exectriage")
	if err := build(ctx, o, commit, runtime.GOOS+"/"+runtime.GOARCH, host); err != nil {
		return err
	}
	completions := map[string][]byte{}
	for shell, name := range map[string]string{"bash": "exectriage.bash", "zsh": "_exectriage", "fish": "exectriage.fish",
		"powershell": "exectriage.ps1"} {
		out, err := exec.CommandContext(ctx, host, "completion", shell).Output()
		if err != nil {
			return fmt.Errorf("completion %s: %w", shell, err)
		}
		completions[name] = out
	}
	mans, err := filepath.Glob(filepath.Join(o.root, "man", "*.1"))
	if err != nil || len(mans) == 0 {
		return fmt.Errorf("no man pages in %s (make man)", filepath.Join(o.root, "man"))
	}
	var sums strings.Builder
	for _, t := range o.targets {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(t), "/")
		if !ok {
			return fmt.Errorf("target %q: want GOOS/GOARCH", t)
		}
		bin := "exectriage"
		if goos == "windows" {
			bin += ".exe"
		}
		exe := filepath.Join(work, goos+"_"+goarch, bin)
		if goos+"/"+goarch == runtime.GOOS+"/"+runtime.GOARCH {
			exe = host // built already
		} else {
			fmt.Fprintf(log, "release: building %s %s/%s\n", o.version, goos, goarch)
			if err := build(ctx, o, commit, goos+"/"+goarch, exe); err != nil {
				return err
			}
		}
		dir := fmt.Sprintf("exectriage_%s_%s_%s", o.version, goos, goarch)
		files := []file{
			{name: dir + "/" + bin, path: exe, mode: 0o755},
			{name: dir + "/README.md", path: filepath.Join(o.root, "README.md"), mode: 0o644},
		}
		for _, m := range mans {
			files = append(files, file{name: dir + "/man/" + filepath.Base(m), path: m, mode: 0o644})
		}
		names := make([]string, 0, len(completions))
		for n := range completions {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			files = append(files, file{name: dir + "/completions/" + n, data: completions[n], mode: 0o644})
		}
		archive := dir + ".tar.gz"
		write := writeTarGz
		if goos == "windows" {
			archive, write = dir+".zip", writeZip
		}
		data, err := write(files)
		if err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
		if err := os.WriteFile(filepath.Join(o.out, archive), data, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), archive)
	}
	return os.WriteFile(filepath.Join(o.out, "SHA256SUMS"), []byte(sums.String()), 0o644)
}

// build compiles the binary for target, stamped with the version and the commit, without cgo
// (the SQLite driver is pure Go), reproducibly (-trimpath, no build id).
func build(ctx context.Context, o options, commit, target, out string) error {
	goos, goarch, _ := strings.Cut(target, "/")
	ld := fmt.Sprintf("-s -w -buildid= -X %s.stampedVersion=%s -X %s.stampedCommit=%s", pkg, o.version, pkg, commit)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", ld, "-o", out, ".")
	cmd.Dir = o.root
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", target, err, b)
	}
	return nil
}

// gitCommit is the commit being built ("unknown" outside a git work tree), "+dirty" when the
// tree has changes.
func gitCommit(ctx context.Context, root string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", root, "status", "--porcelain").Output(); err == nil &&
		len(bytes.TrimSpace(st)) > 0 {
		c += "+dirty"
	}
	return c
}

// devVersion is the version a development build says (cli's Version), read from its source.
func devVersion(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "cli", "root.go"))
	if err == nil {
		if _, rest, ok := strings.Cut(string(b), "const Version = \""); ok {
			if v, _, ok := strings.Cut(rest, "\""); ok {
				return v
			}
		}
	}
	return "0.0.0-dev"
}

func short(commit string) string {
	c, dirty := strings.CutSuffix(commit, "+dirty")
	if len(c) > 12 {
		c = c[:12]
	}
	if dirty {
		c += ".dirty"
	}
	return c
}

// file is one archive entry: from a path or from data.
type file struct {
	name string
	path string
	data []byte
	mode int64
}

func (f file) read() ([]byte, error) {
	if f.path == "" {
		return f.data, nil
	}
	return os.ReadFile(f.path)
}

// epoch is every entry's time: the same sources make the same archive.
func epoch() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

func writeTarGz(files []file) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		data, err := f.read()
		if err != nil {
			return nil, err
		}
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(data)), ModTime: epoch(), Typeflag: tar.TypeReg,
			Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeZip(files []file) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		data, err := f.read()
		if err != nil {
			return nil, err
		}
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: epoch()}
		h.SetMode(os.FileMode(f.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
