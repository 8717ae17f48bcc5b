// Package bilingual 檢查 Go 原始碼裡的每個註解區塊都同時有繁體中文與英文，
// 而且沒有行尾註解。scripts/test.sh 透過 go test 執行它；也可以單獨執行：
// go run ./internal/cmd/bilingual。
//
// Package bilingual checks that every comment block in Go source carries both
// Traditional Chinese and English, and that no comment sits at the end of a
// code line. scripts/test.sh runs it through go test; it also runs alone:
// go run ./internal/cmd/bilingual.
package bilingual

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	han = regexp.MustCompile(`\p{Han}`)
	// 英文：至少兩個三個字母以上的單字，不算反引號裡的程式碼。
	// English: at least two words of three or more letters, outside backquoted code.
	english = regexp.MustCompile(`[A-Za-z]{3,}[^A-Za-z]+[A-Za-z]{3,}`)
	code    = regexp.MustCompile("`[^`]*`")
)

// Problem 是一個不合規則的註解區塊。
//
// Problem is one comment block that breaks the rule.
type Problem struct {
	Pos    token.Position
	Reason string
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s", p.Pos, p.Reason) }

// CheckFile 檢查一個 Go 原始檔。
//
// CheckFile checks one Go source file.
func CheckFile(path string, src []byte) ([]Problem, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	var problems []Problem
	for _, group := range f.Comments {
		pos := fset.Position(group.Pos())
		// 行尾註解：同一行在註解之前已經有程式碼。
		// An end-of-line comment: code precedes it on the same line.
		if before := strings.TrimSpace(lines[pos.Line-1][:pos.Column-1]); before != "" {
			problems = append(problems, Problem{pos, "end-of-line comment (put the zh-TW/English pair on the lines before the code)"})
			continue
		}
		// Text 會略去 //go: 與 //lint: 這類指示；只剩指示的區塊不必翻譯。
		// Text drops directives such as //go: and //lint:; a block of directives alone needs no translation.
		text := group.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		prose := code.ReplaceAllString(text, "")
		switch {
		case !han.MatchString(text):
			problems = append(problems, Problem{pos, "comment block has no Traditional Chinese"})
		case !english.MatchString(han.ReplaceAllString(prose, " ")):
			problems = append(problems, Problem{pos, "comment block has no English"})
		}
	}
	return problems, nil
}

// CheckTree 檢查 root 底下 step*/、internal/ 與 scripts/ 裡的每個 Go 檔（包括測試）。
//
// CheckTree checks every Go file (tests included) under root's step*/,
// internal/ and scripts/ directories.
func CheckTree(root string, read func(string) ([]byte, error)) ([]Problem, error) {
	var problems []Problem
	dirs, err := filepath.Glob(filepath.Join(root, "step[0-9][0-9]-*"))
	if err != nil {
		return nil, err
	}
	dirs = append(dirs, filepath.Join(root, "internal"), filepath.Join(root, "scripts"))
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			src, err := read(path)
			if err != nil {
				return err
			}
			p, err := CheckFile(path, src)
			problems = append(problems, p...)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return problems, nil
}
