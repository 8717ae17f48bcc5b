package testlint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// 情境：測試從 t.Context() 取得 context，而不是自己建立 context.Background()，這樣測試結束（或逾時）時，它發出的每個請求
// 與它啟動的每個 goroutine 就跟著停下。例外是 t.Cleanup 裡面：那時 t.Context() 已經取消了，清理還得做完，
// 所以在那裡用 t.Context() 才是錯的（測試裡的 defer 在取消之前執行，兩者都可以）。檢查的是 repo 裡每一個 _test.go 檔案中，拿得到 testing.T（或 TB、B）的函式。
//
// The story: tests take their context from t.Context() rather than making a
// context.Background() of their own, so when a test ends (or times out) every
// request it sent and every goroutine it started stops with it. The exception
// is inside t.Cleanup: by then t.Context() is cancelled, and the clean-up
// must still be done, so there t.Context() is the mistake (a defer in the
// test runs before it is cancelled, and may use either). It checks every function that can reach a
// testing.T (or TB, or B) in every _test.go file in the repository.
func TestContexts(t *testing.T) {
	root := filepath.Join("..", "..")
	var problems []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		got, err := backgrounds(path)
		problems = append(problems, got...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("%d contexts taken wrong: context.Background() where t.Context() belongs (outside t.Cleanup and defer), or t.Context() inside t.Cleanup, where it is already cancelled:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// 情境：檢查器自己：它抓到測試與 helper 裡的 context.Background()，以及 Cleanup 裡的 t.Context()（或存著它的變數）；
// 放過 defer 與拿不到 t 的函式。
//
// The story: the checker itself: it catches context.Background() in tests
// and helpers, and t.Context() (or a variable holding it) inside Cleanup;
// it lets defer and functions with no t through.
func TestContextsChecker(t *testing.T) {
	src := `package p

import (
	"context"
	"testing"
)

func TestA(t *testing.T) {
	_ = context.Background()
	t.Cleanup(func() { _ = context.Background() })
	defer stop(context.Background())
	go func() { _ = context.Background() }()
	ctx := t.Context()
	t.Cleanup(func() { stop(ctx) })
	t.Cleanup(func() { stop(t.Context()) })
	defer stop(t.Context())
}

func helper(tb testing.TB) { _ = context.Background() }

func plain() { _ = context.Background() }

func stop(context.Context) {}
`
	path := filepath.Join(t.TempDir(), "p_test.go")
	if err := writeFile(path, src); err != nil {
		t.Fatal(err)
	}
	got, err := backgrounds(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{path + ":9", path + ":12", path + ":14 (t.Context() inside Cleanup)", path + ":15 (t.Context() inside Cleanup)", path + ":19"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", got, want)
	}
}

// backgrounds 回傳一個檔案裡該用 t.Context() 的 context.Background()（形如 file:line）。
//
// backgrounds returns the context.Background() calls in a file that belong
// to t.Context() (file:line).
func backgrounds(path string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !hasT(fn.Type) {
			continue
		}
		// 從 t.Context() 來的變數：在 Cleanup 裡用它們，跟直接呼叫 t.Context() 一樣錯。
		// Variables that come from t.Context(): using them inside Cleanup is as wrong as calling t.Context() there.
		fromT := map[string]bool{}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 && isTContext(as.Rhs[0]) {
				if id, ok := as.Lhs[0].(*ast.Ident); ok {
					fromT[id.Name] = true
				}
			}
			return true
		})
		flag := func(n ast.Node, why string) {
			out = append(out, path+":"+itoa(fset.Position(n.Pos()).Line)+why)
		}
		var walk func(n ast.Node, deferred, cleanup bool)
		walk = func(n ast.Node, deferred, cleanup bool) {
			ast.Inspect(n, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.DeferStmt:
					walk(n.Call, true, cleanup)
					return false
				case *ast.Ident:
					if cleanup && fromT[n.Name] {
						flag(n, " (t.Context() inside Cleanup)")
					}
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Cleanup" {
						for _, arg := range n.Args {
							walk(arg, deferred, true)
						}
						return false
					}
					if cleanup && isTContext(n) {
						flag(n, " (t.Context() inside Cleanup)")
						return false
					}
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Background" {
						if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "context" && !deferred && !cleanup {
							flag(n, "")
						}
					}
				}
				return true
			})
		}
		walk(fn.Body, false, false)
	}
	return out, nil
}

// isTContext 回報一個運算式是不是 t.Context()（或 tb.Context()、b.Context()）。
//
// isTContext reports whether an expression is t.Context() (or
// tb.Context(), b.Context()).
func isTContext(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Context" {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && (id.Name == "t" || id.Name == "tb" || id.Name == "b")
}

// hasT 回報函式是否有型別為 *testing.T、*testing.B 或 testing.TB 的參數。
//
// hasT reports whether a function has a parameter of type *testing.T,
// *testing.B or testing.TB.
func hasT(ft *ast.FuncType) bool {
	for _, p := range ft.Params.List {
		typ := p.Type
		if star, ok := typ.(*ast.StarExpr); ok {
			typ = star.X
		}
		if sel, ok := typ.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "testing" && (sel.Sel.Name == "T" || sel.Sel.Name == "B" || sel.Sel.Name == "TB") {
				return true
			}
		}
	}
	return false
}
