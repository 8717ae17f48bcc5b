package bilingual

import (
	"os"
	"strings"
	"testing"
)

// 這個 repo 自己的每個註解區塊都是雙語的。
// Every comment block in this repository is bilingual.
func TestRepository(t *testing.T) {
	problems, err := CheckTree("../..", os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// 檢查器會抓到只有一種語言的區塊與行尾註解，放過雙語區塊與指示。
// The checker catches one-language blocks and end-of-line comments, and lets
// bilingual blocks and directives through.
func TestChecker(t *testing.T) {
	src := `package p

// 只有中文。
var a int

// English only, no Chinese here.
var b int

// 兩種語言都有。
// Both languages are here.
var c int

var d int // 行尾 end of line comment

//go:generate echo ok
var e int
`
	problems, err := CheckFile("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		"p.go:3:1: comment block has no English",
		"p.go:6:1: comment block has no Traditional Chinese",
		"p.go:13:11: end-of-line comment (put the zh-TW/English pair on the lines before the code)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
