package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// trackedFiles 是 repository 裡 git 追蹤的檔案：codegen.sh 在一份它們的複本裡執行（步驟 07 的角色要載入
// 那一步的程式碼與它用到的一切，所以不只是輸入檔）。
//
// trackedFiles are the files git tracks in the repository: codegen.sh runs
// in a copy of them (step 07's role loads that step's code and everything
// it depends on, so more than the inputs).
func trackedFiles(t *testing.T, repo string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// generatedFiles 列出 root 底下 scripts/codegen.sh 寫出的每一個檔案與內容。
//
// generatedFiles lists every file under root that scripts/codegen.sh writes,
// with its contents.
func generatedFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, dir := range []string{"step06-custom-resource/generated", "step06-custom-resource/crd", "step06-custom-resource/apis", "step07-controller-runtime/rbac"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if strings.HasSuffix(dir, "/apis") && !strings.HasPrefix(d.Name(), "zz_generated.") {
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

// 情境：在一份 repository 的暫存複本裡執行 scripts/codegen.sh，產生的每一個檔案都必須跟 repository 裡的
// 一模一樣，一個不多、一個不少。手改過的產生檔、忘了重新產生的型別變更、產生器版本的變動，都在這裡失敗。
// 複本的目錄跟 repository 不同，所以樣板檔的路徑、輸出的套件或模組的目錄結構只要跟目前目錄或 GOPATH 有關，也會在這裡失敗。
//
// The story: scripts/codegen.sh runs in a temporary copy of the repository,
// and every file it writes must be the repository's, byte for byte,
// none missing and none extra. A hand-edited generated file, a type change
// not regenerated, a new generator version: each fails here. The copy lives
// somewhere else than the repository, so a boilerplate path, an output
// package or a module layout that depends on the current directory or GOPATH
// fails here too.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	testenv.FullTier(t, "runs the code generators in a copy of the repository, a check for whoever changes the types, about 10 s")
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := copyRepo(t, repo)
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

// copyRepo 把 repository 裡 git 追蹤的檔案複製到一個暫存目錄，回傳那個目錄。
//
// copyRepo copies the files git tracks in the repository into a temporary
// directory and returns it.
func copyRepo(t *testing.T, repo string) string {
	t.Helper()
	tmp := t.TempDir()
	for _, f := range trackedFiles(t, repo) {
		b, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, f), b, info.Mode()); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}

// 情境：產生器中途失敗（這裡讓型別檔案有語法錯誤）：codegen.sh 以非零結束，而先前產生的每一個檔案都還在、
// 一個位元組都沒變，步驟 06 照樣能編譯。
//
// The story: a generator fails halfway (here the types file has a syntax
// error): codegen.sh exits non-zero, and every file generated before is
// still there, byte for byte, so step 06 still compiles.
func TestFailedCodegenLeavesTheOldCode(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := copyRepo(t, repo)
	types := filepath.Join(tmp, "step06-custom-resource", "apis", "lab", "v1alpha1", "types.go")
	b, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(types, append(b, []byte("\nfunc broken( {\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", filepath.Join(tmp, "scripts", "codegen.sh"))
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("codegen.sh succeeded on a types file with a syntax error:\n%s", out)
	}
	want, got := generatedFiles(t, repo), generatedFiles(t, tmp)
	for path, b := range want {
		if g, ok := got[path]; !ok || !bytes.Equal(b, g) {
			t.Errorf("after the failed run %s is missing or changed: a failed codegen.sh must leave the old code in place", path)
		}
	}
}

// 情境：即時頁面用 informer-gen 替 metrics 取的資源名稱（podtallys，它只在型別名稱後面加 s）找出 tally
// informer 的佇列深度。好心把它「修正」成 podtallies，深度就永遠不會出現；這個測試讓那個修正立刻失敗，
// 而不是等到有人發現量表不動。
//
// The story: the live page finds the tally informer's queue depth by the
// resource name informer-gen gives it for metrics (podtallys: it only adds an
// s to the type's name). A well-meant "fix" to podtallies would make the
// depth never show; this test makes that fix fail at once, instead of when
// someone notices the gauge never moves.
func TestDepthUsesTheGeneratedName(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("generated", "informers", "externalversions", "lab", "v1alpha1", "podtally.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`gvr := schema\.GroupVersionResource\{[^}]*Resource: "(\w+)"\}`).FindSubmatch(src)
	if m == nil {
		t.Fatal("the generated PodTally informer no longer names a resource for its metrics (gvr := ...): read it again")
	}
	var depthOf string
	for _, s := range page(options{}).Stages {
		if s.ID == "tallies" {
			depthOf = s.DepthOf
		}
	}
	if depthOf != string(m[1]) {
		t.Errorf("the page looks for the tally informer's depth under %q, but the generated informer reports it as %q", depthOf, m[1])
	}
}
