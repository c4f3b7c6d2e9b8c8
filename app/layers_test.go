package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

const module = "github.com/exectriage/exectriage/"

// layerRules are the dependency rules of the tree: ui/cli → app → triage/journal/retry/
// client/source → model. A rule forbids the packages under from (non-test files) to import a
// package under any of not.
var layerRules = []struct {
	from string
	not  []string
	why  string
}{
	{"cli", []string{"client", "source"}, "the CLI reaches the domain through app (it names retry's and journal's result types, and calls neither)"},
	{"ui", []string{"client", "source", "sandbox"}, "the TUI reaches the domain through app (it names retry's and journal's result types, and calls neither)"},
	{"app", []string{"ui", "cli"}, "app is below the interfaces"},
	{"triage", []string{"app", "ui", "cli", "config", "journal", "retry", "source", "client"}, "triage is pure decisions"},
	{"verify", []string{"app", "ui", "cli", "config", "journal", "retry", "source", "client", "sandbox"}, "verify asks the provider through the runner it is given"},
	{"window", []string{"app", "ui", "cli", "config", "journal", "retry", "client", "sandbox"}, "the window is below app: it triages and keeps what a source gives it"},
	{"config", []string{"app", "ui", "cli"}, "config is below app"},
	{"journal", []string{"app", "ui", "cli", "triage", "retry", "source", "client"}, "the journal stores, it does not decide"},
	{"retry", []string{"app", "ui", "cli", "source"}, "the protocol is below app"},
	{"source", []string{"app", "ui", "cli", "triage", "journal", "retry", "sandbox"}, "sources only read (the app starts the demo and opens an API source on it)"},
	{"client", []string{"app", "ui", "cli", "triage", "journal", "retry", "source", "sandbox"}, "the client only talks HTTP"},
	{"logcache", []string{"app", "ui", "cli", "triage", "verify", "journal", "retry", "source", "client", "sandbox", "config"}, "the cache keeps records; it imports model only"},
	{"watch", []string{"app", "ui", "cli", "triage", "retry", "source", "client", "sandbox", "window"}, "watch finds events in a judged window and delivers them; it neither reads the API nor judges"},
	{"phrase", []string{"app", "ui", "cli", "sandbox", "window"}, "phrase words the records below app for the fronts (it names client's and source's error types, calls neither: TestPhraseReadsNothing)"},
	{"model", []string{""}, "model imports no package of the project"},
	{"redact", []string{""}, "redact imports no package of the project"},
	{"sdkversion", []string{""}, "sdkversion imports no package of the project"},
}

// violations lists the imports in fsys (a module's tree) that break the rules.
func violations(t *testing.T, fsys fs.FS) (out []string, files int) {
	t.Helper()
	eachSource(t, fsys, func(path string, src []byte) {
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		files++
		dir := filepath.ToSlash(filepath.Dir(path))
		library := (dir == "internal" || strings.HasPrefix(dir, "internal/")) && dir != "internal/testkit" && !strings.HasPrefix(dir, "internal/testkit/")
		if library && f.Name.Name == "main" {
			out = append(out, path+" is a program: programs live under tools/, internal/ holds libraries")
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			rel := strings.TrimPrefix(p, module)
			if library && !strings.HasPrefix(rel, "internal/") {
				out = append(out, path+" imports "+rel+": internal/ libraries import no domain package (test kits live in internal/testkit)")
			}
			if dir == "cli" && rel == "sandbox" && path != "cli/sandbox.go" {
				out = append(out, path+" imports sandbox: only the sandbox command (cli/sandbox.go) serves it; the other commands reach a demo through app")
			}
			if dir == "." && path == "main.go" && rel != "cli" {
				out = append(out, path+" imports "+rel+": main.go only wires (it calls cli.Run)")
			}
			for _, r := range layerRules {
				if dir != r.from && !strings.HasPrefix(dir, r.from+"/") {
					continue
				}
				for _, n := range r.not {
					if n == "" || rel == n || strings.HasPrefix(rel, n+"/") {
						out = append(out, path+" imports "+rel+": "+r.why)
					}
				}
			}
		}
	})
	return out, files
}

func TestLayersHold(t *testing.T) {
	vs, files := violations(t, os.DirFS(".."))
	if files < 100 {
		t.Fatalf("only %d Go files read: the walk missed the tree", files)
	}
	for _, v := range vs {
		t.Error(v)
	}
}

// The checker must be able to fail: a tree with a forbidden import is reported.
func TestLayersCheckerSeesAViolation(t *testing.T) {
	bad := fstest.MapFS{
		"ui/x.go":               {Data: []byte("package ui\nimport _ \"" + module + "client\"\n")},
		"cli/ok_test.go":        {Data: []byte("package cli\nimport _ \"" + module + "source\"\n")},
		"model/m.go":            {Data: []byte("package model\nimport _ \"" + module + "redact\"\n")},
		"main.go":               {Data: []byte("package main\nimport _ \"" + module + "app\"\n")},
		"app/a.go":              {Data: []byte("package app\nimport _ \"" + module + "source\"\n")},
		"source/demo.go":        {Data: []byte("package source\nimport _ \"" + module + "sandbox\"\n")},
		"internal/gen/main.go":  {Data: []byte("package main\n")},
		"internal/lib/l.go":     {Data: []byte("package lib\nimport _ \"" + module + "triage\"\nimport _ \"" + module + "internal/cores\"\n")},
		"internal/testkit/k.go": {Data: []byte("package testkit\nimport _ \"" + module + "sandbox\"\n")},
		"cli/sandbox.go":        {Data: []byte("package cli\nimport _ \"" + module + "sandbox\"\n")},
		"cli/list.go":           {Data: []byte("package cli\nimport _ \"" + module + "sandbox\"\n")},
	}
	got, _ := violations(t, bad)
	if len(got) != 7 {
		t.Fatalf("violations = %q, want the ui, model, main.go, source→sandbox, internal program, internal→triage and cli/list.go→sandbox ones (test files, app's own imports, internal→internal and the test kit are allowed)", got)
	}
}

// judges are the triage functions that judge a window, and the one that gives an execution
// its journal case: only the window package calls them (triage.Analyze stays the tests'
// oracle), so every front reads one judgement with one journal state.
var judges = []string{"Analyze", "NewIncremental", "NewGrouper", "NewClassifier", "GroupCandidates", "Candidates", "ApplyCase"}

// ownJudges lists the non-test files outside triage/ and window/ that judge a window
// themselves, calling one of judges.
func ownJudges(t *testing.T, fsys fs.FS) (out []string) {
	t.Helper()
	eachFile(t, fsys, func(path string) bool { return !under(path, "triage", "window") }, func(path string, f *ast.File) {
		local := importedAs(f, "triage")
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && local[x.Name] != "" && slices.Contains(judges, sel.Sel.Name) {
					out = append(out, path+" calls triage."+sel.Sel.Name+": a front reads the window (window.Builder), it does not judge one of its own")
				}
			}
			return true
		})
	})
	return out
}

// TestOneBuilderJudges: list, show, bundle, verify, scan and the TUI read one
// builder's judgement (the window package), not three.
func TestOneBuilderJudges(t *testing.T) {
	for _, v := range ownJudges(t, os.DirFS("..")) {
		t.Error(v)
	}
}

// The check can fail: a front that analyses a window itself is reported, under any import
// name; triage itself, the window package and tests are not.
func TestOneBuilderCheckSeesAJudge(t *testing.T) {
	imp := "import \"" + module + "triage\"\n"
	bad := fstest.MapFS{
		"app/load.go":         {Data: []byte("package app\n" + imp + "func f() { triage.Analyze(nil, nil, triage.Options{}) }\n")},
		"cli/scan.go":         {Data: []byte("package cli\nimport tr \"" + module + "triage\"\nvar g = tr.NewGrouper\n")},
		"app/ok.go":           {Data: []byte("package app\n" + imp + "var o triage.Options\n")},
		"app/load_test.go":    {Data: []byte("package app\n" + imp + "var r = triage.Analyze\n")},
		"triage/analyze.go":   {Data: []byte("package triage\nfunc Analyze() {}\nvar x = Analyze\n")},
		"window/window.go":    {Data: []byte("package window\n" + imp + "var i = triage.NewIncremental\n")},
		"ui/other_package.go": {Data: []byte("package ui\nimport triage \"example.com/other/triage\"\nvar a = triage.Analyze\n")},
	}
	got := ownJudges(t, bad)
	if len(got) != 2 {
		t.Fatalf("reported %q, want app/load.go and cli/scan.go", got)
	}
}

// aliases lists the type aliases of another package's types in the fronts and app (non-test
// files): each front names the domain's types as they are, so a newcomer finds one name for
// one thing.
func aliases(t *testing.T, fsys fs.FS) (out []string) {
	t.Helper()
	eachFile(t, fsys, func(path string) bool { return under(path, "app", "ui", "cli") }, func(path string, f *ast.File) {
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				ts := spec.(*ast.TypeSpec)
				if _, other := ts.Type.(*ast.SelectorExpr); ts.Assign.IsValid() && other {
					out = append(out, path+": "+ts.Name.Name+" is an alias of another package's type: name it as it is")
				}
			}
		}
	})
	return out
}

// TestNoAliases: app and the fronts re-export no type under a second name.
func TestNoAliases(t *testing.T) {
	for _, v := range aliases(t, os.DirFS("..")) {
		t.Error(v)
	}
	bad := fstest.MapFS{
		"app/a.go":      {Data: []byte("package app\nimport \"x/source\"\ntype Kind = source.Kind\ntype own = string\n")},
		"ui/u.go":       {Data: []byte("package ui\nimport \"x/app\"\ntype (\n\tA = app.A\n\tB app.B\n)\n")},
		"ui/u_test.go":  {Data: []byte("package ui\nimport \"x/app\"\ntype T = app.T\n")},
		"triage/t.go":   {Data: []byte("package triage\nimport \"x/model\"\ntype M = model.M\n")},
		"cli/nested.go": {Data: []byte("package cli\nfunc f() { type L = int; _ = L(0) }\n")},
	}
	if got := aliases(t, bad); len(got) != 2 {
		t.Errorf("reported %q, want app/a.go's Kind and ui/u.go's A", got)
	}
}

// frontCalls lists what the fronts (cli, ui: non-test files) call in retry and journal: they
// may name those packages' result types and constants, never run their functions or convert
// to their types (a retry or a journal write goes through app, which keeps the session's
// promises).
func frontCalls(t *testing.T, fsys fs.FS) []string {
	return packageCalls(t, fsys, []string{"ui", "cli"}, []string{"retry", "journal"}, "the fronts name retry's and journal's types; app runs them")
}

// packageCalls lists the calls that the non-test files under the top-level directories from
// make of a function of one of the project's packages pkgs; why says what is kept by not.
func packageCalls(t *testing.T, fsys fs.FS, from, pkgs []string, why string) (out []string) {
	t.Helper()
	eachFile(t, fsys, func(path string) bool { return under(path, from...) }, func(path string, f *ast.File) {
		local := importedAs(f, pkgs...)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && local[x.Name] != "" {
					out = append(out, path+" calls "+local[x.Name]+"."+sel.Sel.Name+": "+why)
				}
			}
			return true
		})
	})
	return out
}

// TestFrontsCallNeitherRetryNorJournal: a front may name retry.Result or
// journal.VerdictRecord, and never run retry.Run or open a journal itself.
func TestFrontsCallNeitherRetryNorJournal(t *testing.T) {
	for _, v := range frontCalls(t, os.DirFS("..")) {
		t.Error(v)
	}
	imp := "import \"" + module
	bad := fstest.MapFS{
		"cli/r.go":      {Data: []byte("package cli\n" + imp + "retry\"\nfunc f() { retry.Run(nil) }\n")},
		"ui/j.go":       {Data: []byte("package ui\nimport jr \"" + module + "journal\"\nfunc f() { jr.Open(\"x\") }\n")},
		"cli/ok.go":     {Data: []byte("package cli\n" + imp + "retry\"\nvar r retry.Result\nfunc f() { _ = retry.Request{} }\n")},
		"cli/r_test.go": {Data: []byte("package cli\n" + imp + "retry\"\nfunc f() { retry.Run(nil) }\n")},
		"app/a.go":      {Data: []byte("package app\n" + imp + "retry\"\nfunc f() { retry.Run(nil) }\n")},
	}
	if got := frontCalls(t, bad); len(got) != 2 {
		t.Errorf("reported %q, want cli/r.go's retry.Run and ui/j.go's journal.Open", got)
	}
}

// eachFile parses every non-test Go file of fsys that keep takes (by path) and hands it to
// see; the walk skips hidden directories, testdata and bench-data.
func eachFile(t *testing.T, fsys fs.FS, keep func(path string) bool, see func(path string, f *ast.File)) {
	t.Helper()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bench-data" || !keep(path+"/")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || !keep(path) {
			return nil
		}
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
		if err != nil {
			return err
		}
		see(path, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// under says whether path is in one of the top-level directories tops.
func under(path string, tops ...string) bool {
	top, _, _ := strings.Cut(path, "/")
	return slices.Contains(tops, top)
}

// importedAs maps the names f imports the project's packages pkgs under to the package.
func importedAs(f *ast.File, pkgs ...string) map[string]string {
	local := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		for _, pkg := range pkgs {
			if p == module+pkg {
				name := pkg
				if im.Name != nil {
					name = im.Name.Name
				}
				local[name] = pkg
			}
		}
	}
	return local
}

// maxRoomLines bounds a source file: a file longer than this has more than one job (split it
// along the seams it already has, one noun a file). Tests and generated files are not rooms.
const maxRoomLines = 700

// bigRooms lists the non-test, non-generated Go files of fsys longer than maxRoomLines.
func bigRooms(t *testing.T, fsys fs.FS) (out []string) {
	t.Helper()
	eachSource(t, fsys, func(path string, src []byte) {
		if n := strings.Count(string(src), "\n"); n > maxRoomLines {
			out = append(out, path+" has "+strconv.Itoa(n)+" lines (at most "+strconv.Itoa(maxRoomLines)+": split it along its seams)")
		}
	})
	return out
}

// eachSource hands every non-test, non-generated Go file of fsys (hidden directories, testdata
// and bench-data skipped) to see, with its text.
func eachSource(t *testing.T, fsys fs.FS, see func(path string, src []byte)) {
	t.Helper()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bench-data") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := fs.ReadFile(fsys, path)
		if err != nil || generatedRE.Match(src) {
			return err
		}
		see(path, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// generatedRE is Go's marker of a generated file (https://go.dev/s/generatedcode).
var generatedRE = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

func TestNoRoomIsTooBig(t *testing.T) {
	for _, v := range bigRooms(t, os.DirFS("..")) {
		t.Error(v)
	}
	long := strings.Repeat("var _ = 0\n", maxRoomLines)
	bad := fstest.MapFS{
		"x/big.go":          {Data: []byte("package x\n" + long)},
		"x/fits.go":         {Data: []byte("package x\n" + long[:len(long)-len("var _ = 0\n")])},
		"x/big_test.go":     {Data: []byte("package x\n" + long)},
		"x/testdata/big.go": {Data: []byte("package x\n" + long)},
		"x/gen.go":          {Data: []byte("// Code generated by tool; DO NOT EDIT.\n\npackage x\n" + long)},
	}
	if got := bigRooms(t, bad); len(got) != 1 || !strings.HasPrefix(got[0], "x/big.go ") {
		t.Errorf("reported %q, want x/big.go only", got)
	}
}

// batchMethods are what handles a source's records in bulk: streaming a window, handing a page
// back, guessing its size, building a window, queueing records in a feed.
var batchMethods = map[string]bool{"Stream": true, "Recycle": true, "SizeHint": true, "NewWindow": true, "NewBuilder": true, "Give": true, "FindRequests": true, "Record": true}

// frontBatches lists where the TUI (ui/, non-test files) handles a source batch: it calls one
// of batchMethods or names the window's builder. A record goes down one way, source → app.Feed
// → window.Builder → Dataset; the TUI sees counts and datasets.
func frontBatches(t *testing.T, fsys fs.FS) (out []string) {
	t.Helper()
	eachFile(t, fsys, func(path string) bool { return under(path, "ui") }, func(path string, f *ast.File) {
		win := importedAs(f, "window")
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && batchMethods[sel.Sel.Name] {
					out = append(out, path+" calls "+sel.Sel.Name+": the TUI never handles a source batch (app.Feed does)")
				} else if ok && sel.Sel.Name == "Exec" && strings.HasPrefix(path, "ui/components/execlist/") {
					out = append(out, path+" calls Exec: a row prints the window's Row, never a record rebuilt for a frame")
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && win[x.Name] != "" && strings.HasPrefix(n.Sel.Name, "Builder") {
					out = append(out, path+" names "+n.Sel.Name+": the TUI never builds a window (app.Feed does)")
				}
			}
			return true
		})
	})
	return out
}

func TestTheTUINeverHandlesASourceBatch(t *testing.T) {
	for _, v := range frontBatches(t, os.DirFS("..")) {
		t.Error(v)
	}
	imp := "import \"" + module
	bad := fstest.MapFS{
		"ui/l.go":                     {Data: []byte("package ui\nfunc f(a A) { a.Stream(nil, 0, nil); a.Recycle(nil) }\n")},
		"ui/b.go":                     {Data: []byte("package ui\n" + imp + "window\"\nvar b *window.Builder\n")},
		"ui/ok.go":                    {Data: []byte("package ui\n" + imp + "window\"\nimport \"strings\"\nvar d *window.Dataset\nvar s strings.Builder\n")},
		"ui/l_test.go":                {Data: []byte("package ui\nfunc f(a A) { a.Stream(nil, 0, nil) }\n")},
		"app/a.go":                    {Data: []byte("package app\nfunc f(a A) { a.Stream(nil, 0, nil) }\n")},
		"ui/components/execlist/r.go": {Data: []byte("package execlist\nfunc f(s S) { _ = s.Exec(0) }\n")},
		"ui/components/detail/d.go":   {Data: []byte("package detail\nfunc f(s S) { _ = s.Exec(0) }\n")},
	}
	if got := frontBatches(t, bad); len(got) != 4 {
		t.Errorf("reported %q, want ui/l.go's Stream and Recycle, ui/b.go's window.Builder and the list's Exec", got)
	}
}

// handOr lists the fallbacks written by hand that cmp.Or says in a line: `if x == "" { x = y }`
// (or == 0) where y calls nothing. A y that calls something (a new id, a random pick, a costly
// read) is evaluated only when needed, which cmp.Or would not do: those stay.
func handOr(t *testing.T, fsys fs.FS) (out []string) {
	t.Helper()
	eachFile(t, fsys, func(string) bool { return true }, func(path string, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			is, ok := n.(*ast.IfStmt)
			if !ok || is.Init != nil || is.Else != nil || len(is.Body.List) != 1 {
				return true
			}
			cond, ok := is.Cond.(*ast.BinaryExpr)
			if !ok {
				return true
			}
			lit, isLit := cond.Y.(*ast.BasicLit)
			as, isAssign := is.Body.List[0].(*ast.AssignStmt)
			if cond.Op != token.EQL || !isLit || (lit.Value != `""` && lit.Value != "0") ||
				!isAssign || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || types.ExprString(as.Lhs[0]) != types.ExprString(cond.X) {
				return true
			}
			calls := false
			ast.Inspect(as.Rhs[0], func(x ast.Node) bool {
				_, call := x.(*ast.CallExpr)
				calls = calls || call
				return !calls
			})
			if !calls {
				out = append(out, path+": if "+types.ExprString(cond.X)+" == "+lit.Value+" { … } is cmp.Or")
			}
			return true
		})
	})
	return out
}

func TestNoFallbackByHand(t *testing.T) {
	for _, v := range handOr(t, os.DirFS("..")) {
		t.Error(v)
	}
	bad := fstest.MapFS{
		"x/a.go":      {Data: []byte("package x\nfunc f(s, t string, n int) {\n\tif s == \"\" {\n\t\ts = t\n\t}\n\tif n == 0 {\n\t\tn = -1\n\t}\n}\n")},
		"x/ok.go":     {Data: []byte("package x\nfunc f(s string) {\n\tif s == \"\" {\n\t\ts = newID()\n\t}\n\tif s == \"\" {\n\t\ts = \"a\"\n\t} else {\n\t\ts = \"b\"\n\t}\n}\n")},
		"x/a_test.go": {Data: []byte("package x\nfunc f(s, t string) {\n\tif s == \"\" {\n\t\ts = t\n\t}\n}\n")},
	}
	if got := handOr(t, bad); len(got) != 2 {
		t.Errorf("reported %q, want x/a.go's two", got)
	}
}

// maxLine bounds a source line, in characters (a tab one): a longer line wraps in a review or a
// terminal. A line that holds a raw string (a regular expression, SQL, a JSON document, kept
// whole to be read as it runs) is the exception.
const maxLine = 140

// longLines lists the lines of fsys's non-test, non-generated Go files over maxLine.
func longLines(t *testing.T, fsys fs.FS) (out []string) {
	t.Helper()
	eachSource(t, fsys, func(path string, src []byte) {
		for i, line := range strings.Split(string(src), "\n") {
			if n := utf8.RuneCountInString(line); n > maxLine && !strings.Contains(line, "`") {
				out = append(out, path+":"+strconv.Itoa(i+1)+" has "+strconv.Itoa(n)+" characters")
			}
		}
	})
	return out
}

func TestNoLongLines(t *testing.T) {
	for _, v := range longLines(t, os.DirFS("..")) {
		t.Error(v)
	}
	long := strings.Repeat("x", maxLine)
	bad := fstest.MapFS{
		"x/a.go":      {Data: []byte("package x\nvar a = \"" + long + "\"\nvar b = \"ééé\"\n")},
		"x/raw.go":    {Data: []byte("package x\nvar r = `" + long + "`\n")},
		"x/runes.go":  {Data: []byte("package x\n// " + strings.Repeat("é", maxLine-3) + "\n")},
		"x/a_test.go": {Data: []byte("package x\nvar a = \"" + long + "\"\n")},
	}
	if got := longLines(t, bad); len(got) != 1 || !strings.HasPrefix(got[0], "x/a.go:2 ") {
		t.Errorf("reported %q, want x/a.go:2 only", got)
	}
}

// sentences lists the words for people that app's non-test files hold: a string literal of
// three words or more that does not go into an error (fmt.Errorf, errors.New, an *Error's
// fields, an Error method, an argument of a function of app that makes an error: an error
// carries its own text up the chain, as Go's errors do) or a log record (an operator's
// structured log). app returns records; the fronts word them (package phrase).
func sentences(t *testing.T, fsys fs.FS) (out []string) {
	t.Helper()
	inApp := func(p string) bool { return under(p, "app") }
	makers := map[string]bool{"fmt.Errorf": true, "errors.New": true}
	eachFile(t, fsys, inApp, func(_ string, f *ast.File) {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Type.Results != nil && len(fd.Type.Results.List) == 1 &&
				types.ExprString(fd.Type.Results.List[0].Type) == "error" {
				makers[fd.Name.Name] = true
			}
		}
	})
	eachFile(t, fsys, inApp, func(path string, f *ast.File) {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || len(strings.Fields(s)) < 3 || forError(stack, makers) {
				return true
			}
			out = append(out, path+": "+strconv.Quote(s))
			return true
		})
	})
	return out
}

// forError says whether the innermost literal of stack goes into an error (a call of makers,
// by its name or its selector's) or a log record.
func forError(stack []ast.Node, makers map[string]bool) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.FuncDecl:
			return n.Name.Name == "Error" && n.Recv != nil
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			name, last := "", ""
			switch fn := n.Fun.(type) {
			case *ast.SelectorExpr:
				name, last = types.ExprString(fn), fn.Sel.Name
			case *ast.Ident:
				name, last = fn.Name, fn.Name
			}
			switch {
			case makers[name], makers[last] && !isPackageCall(n):
				return true
			case strings.Contains(strings.ToLower(name), "log.") && slices.Contains([]string{"Info", "Warn", "Error", "Debug"}, last):
				return true
			}
		case *ast.CompositeLit:
			if strings.HasSuffix(types.ExprString(n.Type), "Error") {
				return true
			}
		}
	}
	return false
}

// isPackageCall says whether c calls a function of another package (fmt.Sprintf: its
// qualifier resolves to no object of the file), not one of app's or a method.
func isPackageCall(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Obj == nil
}

func TestAppReturnsNoSentence(t *testing.T) {
	for _, v := range sentences(t, os.DirFS("..")) {
		t.Error(v)
	}
	bad := fstest.MapFS{
		"app/a.go": {Data: []byte("package app\nfunc f() string { return \"guards this machine only\" }\n" +
			"func g() error { return fmt.Errorf(\"open the journal: %w\", err) }\n" +
			"func h() error { return &UsageError{Msg: \"this session is read-only\"} }\n" +
			"func k() { log.Info(\"waiting for the rate limit\") }\nvar v = \"two words\"\n" +
			"func (a *App) CheckWrite(what string) error { return nil }\nfunc m(a *App) { _ = a.CheckWrite(\"nothing was sent\") }\n" +
			"type e struct{}\nfunc (e) Error() string { return \"no journal found here\" }\n")},
		"app/a_test.go": {Data: []byte("package app\nvar s = \"a whole sentence here\"\n")},
		"cli/c.go":      {Data: []byte("package cli\nvar s = \"a whole sentence here\"\n")},
	}
	if got := sentences(t, bad); len(got) != 1 || !strings.Contains(got[0], "guards this machine only") {
		t.Errorf("reported %q, want app/a.go's one sentence", got)
	}
}

// phraseCalls lists phrase's calls of a function of client or source: phrase names their error
// types to word an error, and reads nothing.
func phraseCalls(t *testing.T, fsys fs.FS) []string {
	return packageCalls(t, fsys, []string{"phrase"}, []string{"client", "source"}, "phrase words errors and reads nothing")
}

func TestPhraseReadsNothing(t *testing.T) {
	for _, v := range phraseCalls(t, os.DirFS("..")) {
		t.Error(v)
	}
	imp := "import \"" + module
	bad := fstest.MapFS{
		"phrase/p.go":  {Data: []byte("package phrase\n" + imp + "client\"\nfunc f(c *client.Client) { client.New(); var e *client.APIError; _ = e }\n")},
		"phrase/ok.go": {Data: []byte("package phrase\n" + imp + "source\"\nimport \"errors\"\nfunc f(err error) bool { var fe *source.FileError; return errors.As(err, &fe) }\n")},
	}
	if got := phraseCalls(t, bad); len(got) != 1 {
		t.Errorf("reported %q, want phrase/p.go's client.New", got)
	}
}

// strayTests lists the test files of the fronts (cli/, ui/) beside no source file of their
// name: a test sits beside what it tests, so that a reader of a command or a pane finds its
// tests next to it.
func strayTests(t *testing.T, fsys fs.FS) (out []string) {
	t.Helper()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") || !under(path, "cli", "ui") {
			return nil
		}
		if _, err := fs.Stat(fsys, strings.TrimSuffix(path, "_test.go")+".go"); err != nil {
			out = append(out, path+" is beside no "+filepath.Base(strings.TrimSuffix(path, "_test.go"))+".go")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFrontTestsAreBesideTheirSource(t *testing.T) {
	for _, v := range strayTests(t, os.DirFS("..")) {
		t.Error(v)
	}
	bad := fstest.MapFS{
		"cli/list.go":             {Data: []byte("package cli\n")},
		"cli/list_test.go":        {Data: []byte("package cli\n")},
		"cli/wording_test.go":     {Data: []byte("package cli\n")},
		"ui/common/text_test.go":  {Data: []byte("package common\n")},
		"app/session_test.go":     {Data: []byte("package app\n")},
		"ui/testdata/x/a_test.go": {Data: []byte("package x\n")},
	}
	if got := strayTests(t, bad); len(got) != 2 {
		t.Errorf("reported %q, want cli/wording_test.go and ui/common/text_test.go", got)
	}
}
