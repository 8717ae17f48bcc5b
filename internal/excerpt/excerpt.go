// Package excerpt 從真正的原始碼取出一個宣告（連同它的文件註解），讓文件引用的程式碼
// 永遠等於原始碼；docs 的測試用它比對，-update 用它改寫。
//
// Package excerpt takes one declaration (with its doc comment) out of the
// real source, so code quoted in the docs always equals the source; the docs
// test compares with it and -update rewrites with it.
package excerpt

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
)

// Decl 回傳 path 裡名為 name 的宣告的原始碼：函式 "run"、方法 "podListWatcher.List"、
// 型別、變數或常數。若宣告在一個 var ( … ) 群組裡，回傳整個群組。
//
// Decl returns the source of the declaration called name in path: a function
// "run", a method "podListWatcher.List", a type, a variable or a constant. A
// declaration inside a var ( … ) group returns the whole group.
func Decl(path, name string) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, decl := range f.Decls {
		if declName(decl, name) {
			start := decl.Pos()
			if doc := docOf(decl); doc != nil {
				start = doc.Pos()
			}
			return string(src[fset.Position(start).Offset:fset.Position(decl.End()).Offset]) + "\n", nil
		}
	}
	return "", fmt.Errorf("%s: no declaration named %s", path, name)
}

func docOf(decl ast.Decl) *ast.CommentGroup {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		return d.Doc
	case *ast.GenDecl:
		return d.Doc
	}
	return nil
}

func declName(decl ast.Decl, name string) bool {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		n := d.Name.Name
		if d.Recv != nil && len(d.Recv.List) == 1 {
			t := d.Recv.List[0].Type
			if star, ok := t.(*ast.StarExpr); ok {
				t = star.X
			}
			if id, ok := t.(*ast.Ident); ok {
				n = id.Name + "." + n
			}
		}
		return n == name
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.Name == name {
					return true
				}
			case *ast.ValueSpec:
				for _, id := range s.Names {
					if id.Name == name {
						return true
					}
				}
			}
		}
	}
	return false
}
