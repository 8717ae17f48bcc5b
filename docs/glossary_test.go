package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// glossaryFile 是詞彙表的中文版；它的「避免」一欄就是這個檢查的規則。
//
// glossaryFile is the zh-TW glossary; its avoid column is the rule this check
// enforces.
const glossaryFile = "zh-TW/glossary.md"

// falseFriends 是看起來像對岸用語、在台灣卻用得正確的詞（文件指說明文件、對象指讀者群、
// 配置指配置記憶體、項目指一個項目）。「避免」一欄的詞不能落在這些詞裡面，掃描時也先把它們遮掉。
//
// falseFriends are words that look mainland but are correct in Taiwan as used
// here (文件 documentation, 用戶端 client, 對象 audience, 配置 allocate, 項目
// item). No avoided word may fall inside one, and the scan masks them first.
var falseFriends = []string{"文件", "用戶端", "對象", "配置", "項目"}

// avoided 是一個不該出現的詞，以及詞彙表建議的寫法。
//
// avoided is a word that should not appear, with the wording the glossary
// recommends instead.
type avoided struct {
	word, term, instead string
}

var hanChar = regexp.MustCompile(`\p{Han}`)

// avoidList 讀出詞彙表的「避免」一欄：依表頭找到「避免」與「之後」兩欄，
// 每格以「、」或逗號分開，「—」表示沒有。
//
// avoidList reads the glossary's avoid column: it finds the avoid and
// afterwards columns by their headers and splits each cell on 、 or commas;
// — means none.
func avoidList(file string) ([]avoided, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	avoidCol, afterCol := -1, -1
	var list []avoided
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if avoidCol < 0 {
			for i, c := range cells {
				switch {
				case strings.HasPrefix(c, "避免"):
					avoidCol = i
				case strings.HasPrefix(c, "之後"):
					afterCol = i
				}
			}
			continue
		}
		if len(cells) <= avoidCol || strings.HasPrefix(cells[avoidCol], "---") {
			continue
		}
		for _, w := range strings.FieldsFunc(cells[avoidCol], func(r rune) bool { return r == '、' || r == ',' || r == '，' }) {
			w = strings.TrimSpace(w)
			if w == "" || w == "—" {
				continue
			}
			a := avoided{word: w, term: cells[0]}
			if afterCol >= 0 && afterCol < len(cells) {
				a.instead = cells[afterCol]
			}
			list = append(list, a)
		}
	}
	if avoidCol < 0 {
		return nil, fmt.Errorf("%s: no table with an 避免 (avoid) column", file)
	}
	return list, nil
}

// zhLine 是一行中文：Markdown 的一行，或一行含有漢字的註解。
//
// zhLine is one line of zh-TW text: a Markdown line, or a comment line that
// contains Han characters.
type zhLine struct {
	line int
	text string
}

// zhLines 取出一個檔案裡要檢查的中文：Markdown 整份都是；Go 檔取含漢字的註解行；
// shell 檔取含漢字的行（程式輸出維持英文，所以漢字只會出現在註解裡）。
//
// zhLines extracts the zh-TW text of one file to check: all of a Markdown
// file; the comment lines with Han characters of a Go file; the lines with Han
// characters of a shell file (program output stays English, so Han appears
// only in comments).
func zhLines(file string) ([]zhLine, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []zhLine
	switch {
	case strings.HasSuffix(file, ".md"):
		for i, l := range strings.Split(string(src), "\n") {
			out = append(out, zhLine{i + 1, l})
		}
	case strings.HasSuffix(file, ".go"):
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, group := range f.Comments {
			for _, c := range group.List {
				first := fset.Position(c.Pos()).Line
				for i, l := range strings.Split(c.Text, "\n") {
					if hanChar.MatchString(l) {
						out = append(out, zhLine{first + i, l})
					}
				}
			}
		}
	default:
		sc := bufio.NewScanner(bytes.NewReader(src))
		for n := 1; sc.Scan(); n++ {
			if hanChar.MatchString(sc.Text()) {
				out = append(out, zhLine{n, sc.Text()})
			}
		}
	}
	return out, nil
}

// checkGlossary 回報 files 裡每一個出現在 avoid 裡的詞，寫明檔案、行號與建議的寫法。
//
// checkGlossary reports every avoided word in files, naming the file, the
// line and the recommended wording.
func checkGlossary(e errorer, avoid []avoided, files []string) {
	mask := strings.NewReplacer(func() []string {
		var pairs []string
		for _, f := range falseFriends {
			pairs = append(pairs, f, strings.Repeat("＿", len([]rune(f))))
		}
		return pairs
	}()...)
	for _, f := range files {
		lines, err := zhLines(f)
		if err != nil {
			e.Errorf("%v", err)
			continue
		}
		for _, l := range lines {
			text := mask.Replace(l.text)
			for _, a := range avoid {
				if strings.Contains(text, a.word) {
					e.Errorf("%s:%d: 「%s」 is on the glossary's avoid list (%s: write %s): %s", f, l.line, a.word, a.term, a.instead, strings.TrimSpace(l.text))
				}
			}
		}
	}
}

// zhFiles 是所有要照詞彙表檢查的檔案：根目錄與各步驟的 README.zh-TW.md、docs/zh-TW
// （詞彙表本身除外）、step*/、internal/、scripts/ 與 docs/ 底下的 Go 檔，以及 shell 檔。
//
// zhFiles are all the files held to the glossary: the root and step
// README.zh-TW.md files, docs/zh-TW (the glossary itself aside), the Go files
// under step*/, internal/, scripts/ and docs/, and the shell files.
func zhFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, f := range markdownFiles(t) {
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		// CONTRIBUTING.md 兩種語言寫在同一個檔案裡；英文的行不會含有要避免的中文詞。
		// CONTRIBUTING.md holds both languages in one file; its English lines cannot contain an avoided Chinese word.
		if strings.HasSuffix(rel, ".zh-TW.md") || rel == "CONTRIBUTING.md" || (strings.HasPrefix(rel, "docs/zh-TW/") && rel != "docs/"+glossaryFile) {
			files = append(files, f)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "step[0-9][0-9]-*"))
	dirs = append(dirs, filepath.Join(root, "internal"), filepath.Join(root, "scripts"), filepath.Join(root, "docs"))
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".sh") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return append(files, filepath.Join(root, ".ci", "run"))
}

// 情境：詞彙表「避免」一欄的詞，沒有出現在任何中文說明或註解的中文部分裡。
//
// The scenario: no word of the glossary's avoid column appears in any zh-TW
// page or in the zh-TW half of any comment.
func TestGlossaryAvoided(t *testing.T) {
	avoid, err := avoidList(glossaryFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(avoid) < 10 {
		t.Fatalf("%s: only %d avoided words read; is the avoid column still there?", glossaryFile, len(avoid))
	}
	for _, a := range avoid {
		for _, f := range falseFriends {
			if strings.Contains(f, a.word) {
				t.Errorf("%s: avoided word 「%s」 (%s) would also match 「%s」, which is correct as used here", glossaryFile, a.word, a.term, f)
			}
		}
	}
	checkGlossary(t, avoid, zhFiles(t))
}

// 情境：這個檢查會抓到它要抓的東西：在暫存的中文頁面與 Go 檔各種下一個要避免的詞，
// 兩處都被回報並寫明行號；同一頁裡正確的用詞（包括「文件」這類容易誤判的詞）不被回報。
//
// The scenario: the check catches what it is for: an avoided word planted in
// a temporary zh-TW page and another in a Go comment are both reported with
// their lines; the correct wording beside them (including a false friend
// such as 文件) is not.
func TestGlossaryCatchesPlantedDefects(t *testing.T) {
	avoid, err := avoidList(glossaryFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "page.zh-TW.md")
	code := filepath.Join(dir, "code.go")
	files := map[string]string{
		page: "# 標題\n\nReflector（負責 List 與 watch 的元件）先 List 再 watch；詳見文件。\n\n這時反射器會重新 List。\n",
		code: "package x\n\n// f 回傳 Pod 的 key。\n//\n// f returns the pod's key.\nfunc f() {}\n\n// g 先列出所有 Pod，再開始 watch。\n//\n// g lists every pod, then watches.\nfunc g() {}\n\n// 把黃金檔放在 testdata。 / The golden file lives in testdata.\nvar h = 1\n",
	}
	for f, s := range files {
		if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rec := &recorder{}
	checkGlossary(rec, avoid, []string{page, code})
	got := rec.String()
	t.Logf("planted defects reported:\n%s", got)
	for _, want := range []string{
		page + ":5: 「反射器」",
		code + ":13: 「黃金檔」",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("planted defect not reported (%q); got:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 2 {
		t.Errorf("want exactly the 2 planted defects reported, got %d:\n%s", n, got)
	}
}
