// Package bilingual 檢查 Go 原始碼裡的每個註解區塊都同時有繁體中文與英文、沒有行尾註解，
// 而且文件註解的每一段都以它說明的名字開頭（STYLE.md 的規則）。產生出來的檔案不檢查。
// scripts/test.sh 透過 go test 執行它；也可以單獨執行：go run ./internal/cmd/bilingual。
//
// Package bilingual checks that every comment block in Go source carries both
// Traditional Chinese and English, that no comment sits at the end of a code
// line, and that every paragraph of a doc comment starts with the name it
// documents (STYLE.md's rule). Generated files are left alone. scripts/test.sh
// runs it through go test; it also runs alone: go run ./internal/cmd/bilingual.
package bilingual

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	han = regexp.MustCompile(`\p{Han}`)
	// 英文：至少兩個長度三個字母以上的英文單字，不算反引號裡的程式碼。
	// English: at least two words of three or more letters, outside backquoted code.
	english = regexp.MustCompile(`[A-Za-z]{3,}[^A-Za-z]+[A-Za-z]{3,}`)
	code    = regexp.MustCompile("`[^`]*`")
	// testFunc 是 go test 執行的函式名稱。 / testFunc matches the names of the functions go test runs.
	testFunc = regexp.MustCompile(`^(Test|Benchmark|Fuzz|Example)([A-Z_]|$)`)
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
	if ast.IsGenerated(f) {
		return nil, nil
	}
	lines := strings.Split(string(src), "\n")
	problems := docParagraphs(fset, f)
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

// docParagraphs 找出文件註解裡不以名字開頭的段落：函式、方法、型別，以及單獨宣告的變數與常數。
// 縮排的段落是程式碼或清單，不算；括號裡成組宣告的項目也不算。測試函式以「情境：」/"The story:" 開頭，
// 是這個 repo 的慣例，所以不檢查。
//
// docParagraphs finds doc comment paragraphs that do not start with the name
// they document: functions, methods, types, and variables and constants
// declared on their own. Indented paragraphs are code or lists and do not
// count, nor do the members of a parenthesised group. Test functions open
// with 情境：/"The story:", this repository's convention, and are not checked.
func docParagraphs(fset *token.FileSet, f *ast.File) []Problem {
	var problems []Problem
	check := func(doc *ast.CommentGroup, name string) {
		if doc == nil || name == "_" {
			return
		}
		for _, para := range strings.Split(doc.Text(), "\n\n") {
			if para == "" || strings.HasPrefix(para, " ") || strings.HasPrefix(para, "\t") {
				continue
			}
			if !strings.HasPrefix(para, name+" ") && !strings.HasPrefix(para, name+"：") && !strings.HasPrefix(para, name+"，") {
				first, _, _ := strings.Cut(para, "\n")
				problems = append(problems, Problem{fset.Position(doc.Pos()), fmt.Sprintf("a paragraph of %s's doc comment does not start with %s: %q", name, name, first)})
			}
		}
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !testFunc.MatchString(d.Name.Name) {
				check(d.Doc, d.Name.Name)
			}
		case *ast.GenDecl:
			if d.Lparen.IsValid() {
				continue
			}
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					check(d.Doc, sp.Name.Name)
				case *ast.ValueSpec:
					check(d.Doc, sp.Names[0].Name)
				}
			}
		}
	}
	return problems
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
