package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// codegenInputs 是 scripts/codegen.sh 讀的檔案：其餘的（generated/、zz_generated.deepcopy.go、crd/）全由它寫出。
//
// codegenInputs are the files scripts/codegen.sh reads: everything else
// (generated/, zz_generated.deepcopy.go, crd/) it writes.
var codegenInputs = []string{
	"go.mod", "go.sum",
	"scripts/codegen.sh", "scripts/lib.sh", "scripts/codegen/boilerplate.go.txt",
	"step06-custom-resource/apis/lab/v1alpha1/doc.go",
	"step06-custom-resource/apis/lab/v1alpha1/register.go",
	"step06-custom-resource/apis/lab/v1alpha1/types.go",
}

// generatedFiles 列出 root 底下 scripts/codegen.sh 寫出的每一個檔案與內容。
//
// generatedFiles lists every file under root that scripts/codegen.sh writes,
// with its contents.
func generatedFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	step := filepath.Join(root, "step06-custom-resource")
	for _, dir := range []string{"generated", "crd", "apis"} {
		err := filepath.WalkDir(filepath.Join(step, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if dir == "apis" && !strings.HasPrefix(d.Name(), "zz_generated.") {
				return nil
			}
			b, err := os.ReadFile(path)
			files[rel] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// 情境：在一份只有輸入檔的暫存複本裡執行 scripts/codegen.sh，產生的每一個檔案都必須跟 repository 裡的
// 一模一樣，一個不多、一個不少。手改過的產生檔、忘了重新產生的型別變更、產生器版本的變動，都在這裡失敗。
// 複本的目錄跟 repository 不同，所以樣板檔的路徑、輸出的套件或模組的目錄結構只要跟目前目錄或 GOPATH 有關，也會在這裡失敗。
//
// The story: scripts/codegen.sh runs in a temporary copy that holds only its
// inputs, and every file it writes must be the repository's, byte for byte,
// none missing and none extra. A hand-edited generated file, a type change
// not regenerated, a new generator version: each fails here. The copy lives
// somewhere else than the repository, so a boilerplate path, an output
// package or a module layout that depends on the current directory or GOPATH
// fails here too.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, f := range codegenInputs {
		b, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		info, _ := os.Stat(filepath.Join(repo, f))
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, f), b, info.Mode()); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", filepath.Join(tmp, "scripts", "codegen.sh"))
	// 從別的目錄執行：腳本必須自己找到 repository 的根。 / Run from elsewhere: the script must find the root by itself.
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/codegen.sh failed: %v\n%s", err, out)
	}
	want, got := generatedFiles(t, repo), generatedFiles(t, tmp)
	for path, b := range want {
		g, ok := got[path]
		switch {
		case !ok:
			t.Errorf("%s is in the repository but codegen.sh does not write it: remove it, or run scripts/codegen.sh", path)
		case !bytes.Equal(b, g):
			t.Errorf("%s differs from what codegen.sh writes: run scripts/codegen.sh and commit the result; never edit it by hand", path)
		}
	}
	for path := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("codegen.sh writes %s, which is not in the repository: run scripts/codegen.sh and commit it", path)
		}
	}
	if len(want) < 20 {
		t.Errorf("only %d generated files found in the repository; the walk is looking in the wrong place", len(want))
	}
}
