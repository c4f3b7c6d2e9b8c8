package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// quickBackend are the Backend methods that read what the session holds and never block:
// Update and View may call them. Every other method may do I/O: only a tea.Cmd calls it.
var quickBackend = map[string]bool{
	"SourceName": true, "Hint": true, "JournalProblem": true, "ReadOnly": true, "CheckRead": true,
	"Profile": true, "SourceKind": true, "RateWaiting": true, "Hold": true, "VerdictsFor": true,
	"Policy": true, "NewFeed": true, "DashboardURL": true,
	"Pending": true, // the feed's queue length
}

// loopRules lists where the TUI's loop breaks its two rules (ui/README.md): Update and View do no
// I/O (a call through the backend or the feed that may block is only in a function literal, the
// body of a tea.Cmd), and a tea.Cmd changes no state (a literal returning a tea.Msg assigns to
// no field of the model it was made in: the result comes back as a message).
func loopRules(t *testing.T, fsys fs.FS) (out []string) {
	t.Helper()
	paths, err := fs.Glob(fsys, "*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		at := func(n ast.Node) string {
			return path + ":" + strings.TrimPrefix(fset.Position(n.Pos()).String(), path+":")
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			recv := ""
			if fd.Recv != nil && len(fd.Recv.List) == 1 && len(fd.Recv.List[0].Names) == 1 {
				recv = fd.Recv.List[0].Names[0].Name
			}
			var walk func(n ast.Node, inCmd bool)
			walk = func(n ast.Node, inCmd bool) {
				ast.Inspect(n, func(x ast.Node) bool {
					switch x := x.(type) {
					case *ast.FuncLit:
						if x != n {
							if recv != "" && returnsMsg(x) {
								out = append(out, assigns(x.Body, recv, at)...)
							}
							walk(x.Body, true)
							return false
						}
					case *ast.CallExpr:
						sel, ok := x.Fun.(*ast.SelectorExpr)
						if !ok || inCmd || quickBackend[sel.Sel.Name] {
							return true
						}
						if inner, ok := sel.X.(*ast.SelectorExpr); ok && (inner.Sel.Name == "be" || inner.Sel.Name == "feed") {
							out = append(out, at(x)+": "+fd.Name.Name+" calls "+inner.Sel.Name+"."+sel.Sel.Name+" on the loop: it may block (run it in a tea.Cmd)")
						}
					}
					return true
				})
			}
			walk(fd.Body, false)
		}
	}
	return out
}

// returnsMsg says fn is a tea.Cmd's body: no parameters, one tea.Msg result.
func returnsMsg(fn *ast.FuncLit) bool {
	if fn.Type.Params.NumFields() != 0 || fn.Type.Results.NumFields() != 1 {
		return false
	}
	sel, ok := fn.Type.Results.List[0].Type.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Msg"
}

// assigns lists the assignments in body to a field of recv (recv.x = …, recv.x[k] = …, recv.x++).
func assigns(body ast.Node, recv string, at func(ast.Node) string) (out []string) {
	rooted := func(e ast.Expr) bool {
		for {
			switch x := e.(type) {
			case *ast.SelectorExpr:
				e = x.X
			case *ast.IndexExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			case *ast.Ident:
				return x.Name == recv
			default:
				return false
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs = n.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{n.X}
		}
		for _, e := range lhs {
			if _, field := e.(*ast.Ident); !field && rooted(e) {
				out = append(out, at(n)+": a tea.Cmd changes "+recv+"'s state (send a message instead)")
			}
		}
		return true
	})
	return out
}

func TestTheLoopDoesNoIOAndCmdsChangeNoState(t *testing.T) {
	for _, v := range loopRules(t, os.DirFS(".")) {
		t.Error(v)
	}
	bad := fstest.MapFS{
		"io.go":     {Data: []byte("package ui\nfunc (m *Model) Update() { m.be.Verify(nil, nil); m.load.feed.Analyze(nil, nil, false, false); _ = m.be.ReadOnly() }\n")},
		"cmd.go":    {Data: []byte("package ui\nfunc (m *Model) c() tea.Cmd { return func() tea.Msg { m.n++; m.s.x = 1; v := 2; _ = v; return nil } }\n")},
		"ok.go":     {Data: []byte("package ui\nfunc (m *Model) c() tea.Cmd { be := m.be; return func() tea.Msg { return be.Verify(nil, nil) } }\nfunc (m *Model) d() tea.Cmd { return func() tea.Msg { return m.be.Get(nil, \"x\") } }\n")},
		"x_test.go": {Data: []byte("package ui\nfunc (m *Model) Update() { m.be.Verify(nil, nil) }\n")},
	}
	if got := loopRules(t, bad); len(got) != 4 {
		t.Errorf("reported %d:\n%s\nwant io.go's Verify and Analyze and cmd.go's two assignments", len(got), strings.Join(got, "\n"))
	}
}
