package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// A release of this machine's platform: one archive with the binary stamped with the version
// and the commit, the README, every man page and the four completions; SHA256SUMS names it with
// its digest.
func TestAReleaseArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	out := t.TempDir()
	host := runtime.GOOS + "/" + runtime.GOARCH
	if err := run(context.Background(), options{version: "v9.8.7", out: out, targets: []string{host}, root: "../.."}, io.Discard); err != nil {
		t.Fatal(err)
	}
	name := "exectriage_9.8.7_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	data, err := os.ReadFile(filepath.Join(out, name))
	if err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	sum := sha256.Sum256(data)
	if string(sums) != hex.EncodeToString(sum[:])+"  "+name+"\n" {
		t.Fatalf("SHA256SUMS %q", sums)
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	dir := strings.TrimSuffix(name, ".tar.gz") + "/"
	bin := filepath.Join(t.TempDir(), "exectriage")
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, strings.TrimPrefix(h.Name, dir))
		if h.Name == dir+"exectriage" {
			b, _ := io.ReadAll(tr)
			if err := os.WriteFile(bin, b, 0o755); err != nil || h.Mode&0o111 == 0 {
				t.Fatalf("the binary: %v (mode %o)", err, h.Mode)
			}
		}
	}
	mans, _ := filepath.Glob("../../man/*.1")
	for _, want := range append([]string{"exectriage", "README.md", "completions/exectriage.bash", "completions/_exectriage",
		"completions/exectriage.fish", "completions/exectriage.ps1"}, func() (m []string) {
		for _, p := range mans {
			m = append(m, "man/"+filepath.Base(p))
		}
		return m
	}()...) {
		if !slices.Contains(names, want) {
			t.Errorf("the archive lacks %s (it has %v)", want, names)
		}
	}
	v, err := exec.Command(bin, "--version").Output()
	commit, _ := exec.Command("git", "-C", "../..", "rev-parse", "HEAD").Output()
	if err != nil || !strings.Contains(string(v), "9.8.7") || !strings.Contains(string(v), "commit "+string(commit[:12])) {
		t.Fatalf("--version of the release: %q %v", v, err)
	}
}

// A Windows archive is a zip whose binary keeps its name and its mode.
func TestAZipArchive(t *testing.T) {
	data, err := writeZip([]file{{name: "d/exectriage.exe", data: []byte("MZ"), mode: 0o755}, {name: "d/README.md", data: []byte("# r"), mode: 0o644}})
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(zr.File) != 2 || zr.File[0].Name != "d/exectriage.exe" || zr.File[0].Mode()&0o111 == 0 {
		t.Fatalf("zip: %v %+v", err, zr)
	}
	again, _ := writeZip([]file{{name: "d/exectriage.exe", data: []byte("MZ"), mode: 0o755}, {name: "d/README.md", data: []byte("# r"), mode: 0o644}})
	if !bytes.Equal(data, again) {
		t.Fatal("the same files made another archive")
	}
}
