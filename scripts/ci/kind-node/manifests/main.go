// manifests 從 kind 自己的原始碼取出節點映像檔裡的兩份附加元件 manifest 與它們用到的映像檔，
// 跟 `kind build node-image` 寫進 /kind/manifests 的內容一字不差。
// 那些常數沒有匯出，所以這裡用 go/types 求出原始檔裡常數的值，而不是複製它們。
//
//	go run ./manifests <kind 模組目錄> <輸出目錄>
//
// 輸出目錄裡會有 default-cni.yaml、default-storage.yaml，標準輸出則是每行一個映像檔名稱。
//
// manifests takes, from kind's own source, the two addon manifests of the node
// image and the images they use, exactly as `kind build node-image` writes them
// into /kind/manifests. Those constants are not exported, so this evaluates
// them from the source files with go/types instead of copying them.
//
//	go run ./manifests <kind module dir> <out dir>
//
// The out dir gets default-cni.yaml and default-storage.yaml; standard output
// gets one image name per line.
package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: manifests <kind module dir> <out dir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "manifests:", err)
		os.Exit(1)
	}
}

func run(kindDir, out string) error {
	dir := filepath.Join(kindDir, "pkg", "build", "nodeimage")
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range []string{"const_cni.go", "const_storage.go"} {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: importer.Default()}
	pkg, err := conf.Check("nodeimage", fset, files, info)
	if err != nil {
		return err
	}
	str := func(name string) (string, error) {
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if !ok || c.Val().Kind() != constant.String {
			return "", fmt.Errorf("%s is not a string constant in %s", name, dir)
		}
		return constant.StringVal(c.Val()), nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for file, name := range map[string]string{"default-cni.yaml": "defaultCNIManifest", "default-storage.yaml": "defaultStorageManifest"} {
		s, err := str(name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, file), []byte(s), 0o644); err != nil {
			return err
		}
	}
	// 映像檔清單是 []string 變數，它的每個元素都是常數。 / The image lists are []string variables whose elements are all constants.
	for _, name := range []string{"defaultCNIImages", "defaultStorageImages"} {
		found := false
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				spec, ok := n.(*ast.ValueSpec)
				if !ok || len(spec.Names) != 1 || spec.Names[0].Name != name || len(spec.Values) != 1 {
					return true
				}
				lit, ok := spec.Values[0].(*ast.CompositeLit)
				if !ok {
					return true
				}
				for _, elt := range lit.Elts {
					if v := info.Types[elt].Value; v != nil && v.Kind() == constant.String {
						fmt.Println(constant.StringVal(v))
						found = true
					}
				}
				return false
			})
		}
		if !found {
			return fmt.Errorf("no images in %s in %s", name, dir)
		}
	}
	return nil
}
