// Package golden 比對程式輸出與 testdata/ 裡的 golden file（預期輸出檔）；與預期不一致時測試失敗。
// README 與文件裡引用 golden file 的區塊由 go test ./docs 檢查。用 -update 重新產生，絕不手改。
//
// Package golden compares program output with golden files in testdata/; the
// test fails when it drifts. The README and docs blocks that quote golden
// files are checked by go test ./docs. Regenerate with -update, never by hand.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files and README output blocks from what the programs print now")

// Updating 回報這次測試是否帶著 -update（要改寫 golden file 與文件，而不是比對）。
//
// Updating reports whether the tests run with -update (rewrite golden files
// and docs instead of comparing).
func Updating() bool { return *update }

// Check 比對 got 與 testdata/<name>.golden。
//
// Check compares got with testdata/<name>.golden.
func Check(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with: go test -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("output differs from %s (if the change is intended: go test -run %s -update)\n--- want\n%s--- got\n%s",
			path, t.Name(), want, got)
	}
}
