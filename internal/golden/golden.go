// Package golden 比對程式輸出與 testdata/ 裡的黃金檔（golden file），也比對 README
// 裡標記的輸出區塊；兩者漂移時測試失敗。用 go test -update 重新產生，絕不手改。
//
// Package golden compares program output with golden files in testdata/, and
// with the marked output blocks in READMEs; the test fails when either drifts.
// Regenerate with go test -update, never by hand.
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files and README output blocks from what the programs print now")

// Updating 回報這次測試是否帶著 -update（要改寫黃金檔與文件，而不是比對）。
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

// Markers 回傳 Markdown 裡包住某個黃金檔的兩行標記。
//
// Markers returns the two Markdown lines that enclose a golden file's copy.
func Markers(name string) (begin, end string) {
	return fmt.Sprintf("<!-- golden:%s -->", name), fmt.Sprintf("<!-- /golden:%s -->", name)
}

// CheckDocs 確認目錄裡每個引用 testdata/<name>.golden 的 Markdown 檔，
// 標記之間的程式碼區塊都與黃金檔完全相同；-update 時改寫它們。
//
// CheckDocs checks that every Markdown file in dir that quotes
// testdata/<name>.golden has exactly that content in the code block between
// the markers; with -update it rewrites them.
func CheckDocs(t *testing.T, dir, name string) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
	if err != nil {
		t.Fatal(err)
	}
	block := "```text\n" + string(want) + "```\n"
	begin, end := Markers(name)
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	found := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		i := strings.Index(text, begin+"\n")
		j := strings.Index(text, end)
		if i < 0 {
			continue
		}
		found++
		if j < i {
			t.Errorf("%s: %s without %s", f, begin, end)
			continue
		}
		got := text[i+len(begin)+1 : j]
		if got == block {
			continue
		}
		if *update {
			text = text[:i+len(begin)+1] + block + text[j:]
			if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: the output shown between %s and %s differs from testdata/%s.golden (go test -update rewrites it)\n--- shown\n%s--- golden\n%s",
			f, begin, end, name, got, block)
	}
	if found == 0 {
		t.Errorf("no Markdown file in %s shows testdata/%s.golden (expected a block between %s and %s)", dir, name, begin, end)
	}
}
