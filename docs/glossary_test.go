package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
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

// zhHalf 是單一檔案雙語 README 裡中文那一節的標題。
//
// zhHalf is the heading of the zh-TW section in a README that holds both
// languages in one file.
const zhHalf = "## 繁體中文"

// zhLine 是一行中文：Markdown 的一行，或一行含有漢字的註解。
//
// zhLine is one line of zh-TW text: a Markdown line, or a comment line that
// contains Han characters.
type zhLine struct {
	line int
	text string
}

// zhLines 取出一個檔案裡要檢查的中文：Markdown 整份都是（雙語 README 只取中文那一半）；
// Go 檔取含漢字的註解行；shell 檔取含漢字的行（程式輸出維持英文，所以漢字只會出現在註解裡）。
//
// zhLines extracts the zh-TW text of one file to check: all of a Markdown
// file (only the zh-TW half of a bilingual README); the comment lines with
// Han characters of a Go file; the lines with Han characters of a shell file
// (program output stays English, so Han appears only in comments).
func zhLines(file string) ([]zhLine, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []zhLine
	switch {
	case strings.HasSuffix(file, ".md"):
		// 兩種語言寫在同一個檔案裡的 README（有「## 繁體中文」一節）只取標題與中文那一半：
		// 英文那一半可以照原文引用中文詞，不受詞彙表約束。
		// A README holding both languages (it has a "## 繁體中文" section) gives
		// only its title and its zh-TW half: the English half may quote a
		// Chinese word verbatim, and the glossary does not govern it.
		all := strings.Split(string(src), "\n")
		bilingual := slices.Contains(all, zhHalf)
		keep := true
		for i, l := range all {
			if bilingual && strings.HasPrefix(l, "## ") {
				keep = l == zhHalf
			}
			if keep {
				out = append(out, zhLine{i + 1, l})
			}
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
		// 字串裡的中文也是給讀者看的：即時頁面的階段名稱與標題（liveview.Text 的 Zh）。測試檔的字串是測試資料，不算。
		// Chinese in string literals is for readers too: the live page's stage names and titles (liveview.Text's Zh).
		// A test file's strings are test data and do not count.
		ast.Inspect(f, func(n ast.Node) bool {
			if strings.HasSuffix(file, "_test.go") {
				return false
			}
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && hanChar.MatchString(lit.Value) {
				out = append(out, zhLine{fset.Position(lit.Pos()).Line, lit.Value})
			}
			return true
		})
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

// 說明（gloss）的規則：每頁只在第一次出現時說明一次；說明不放進另一對括號裡；不夾在術語與它修飾的名詞之間；
// 一句話需要三個說明時，就該拆開。前兩條看得出形狀：全形括號緊接著另一對全形括號（「）（」，
// 例如同一個術語被說明兩次），以及全形括號裡又有全形括號。
//
// The gloss rule: gloss a term once per page, at its first use; never inside
// another pair of brackets; never between a term and the noun it belongs to;
// a sentence that needs three glosses is a sentence to split. The first two
// have a shape a check can see: a full-width parenthesis right after another
// (「）（」, a term glossed twice, say), and a full-width parenthesis inside
// another.

var (
	// 開始或結束一個程式碼區塊的行。 / A line that opens or closes a code block.
	codeFence = regexp.MustCompile("^\\s*(```|~~~)")
	// 開始一個新區塊的行：標題、表格列、清單項目。 / A line that starts a new block: a heading, a table row, a list item.
	newBlock = regexp.MustCompile(`^\s*(#|\||[-*+] |\d+\. )`)
)

// checkGlosses 回報 Markdown 裡中文說明（程式碼區塊與行內程式碼以外）的「）（」與巢狀全形括號，
// 寫明檔案與行號。括號的層次跨行累計，到空行或新的區塊為止。
//
// checkGlosses reports, in the zh-TW prose of Markdown files (outside code
// blocks and inline code), a 「）（」 and a full-width parenthesis nested in
// another, naming the file and line. Nesting is followed across lines, up to
// a blank line or the start of a new block.
func checkGlosses(e errorer, files []string) {
	for _, f := range files {
		lines, err := zhLines(f)
		if err != nil {
			e.Errorf("%v", err)
			continue
		}
		inCode := false
		depth, justClosed := 0, false
		for _, l := range lines {
			if codeFence.MatchString(l.text) {
				inCode = !inCode
				continue
			}
			if inCode {
				continue
			}
			if strings.TrimSpace(l.text) == "" || newBlock.MatchString(l.text) {
				depth, justClosed = 0, false
			}
			// 行內程式碼換成一個字母，不是刪掉：`a`（說明）`b`（說明）不該變成「）（」。
			// Inline code becomes one letter rather than nothing: `a`（gloss）`b`（gloss） must not turn into 「）（」.
			prose := inlineCode.ReplaceAllString(l.text, "c")
			for _, r := range prose {
				switch {
				case r == '（':
					if justClosed {
						e.Errorf("%s:%d: 「）（」: two parentheses side by side (a term glossed twice, or two asides in a row): %s", f, l.line, strings.TrimSpace(l.text))
					}
					if depth > 0 {
						e.Errorf("%s:%d: a full-width parenthesis inside another (never gloss inside brackets): %s", f, l.line, strings.TrimSpace(l.text))
					}
					depth++
					justClosed = false
				case r == '）':
					if depth > 0 {
						depth--
					}
					justClosed = true
				case !unicode.IsSpace(r):
					justClosed = false
				}
			}
		}
	}
}

// 情境：中文說明遵守說明的規則：沒有「）（」，也沒有全形括號套在全形括號裡。
//
// The scenario: the zh-TW prose keeps the gloss rule: no 「）（」, and no
// full-width parenthesis inside another.
func TestGlossRule(t *testing.T) {
	checkGlosses(t, zhMarkdown(t, true))
}

// 情境：詞彙表檢查涵蓋每一個含中文的檔案，包括單一檔案的雙語 README 與沒有 .sh 副檔名的 shell 腳本。
//
// The scenario: the glossary check covers every file with zh-TW text,
// including the single-file bilingual READMEs and the shell scripts without
// a .sh extension.
func TestGlossaryCoversEveryFile(t *testing.T) {
	files := zhFiles(t)
	for _, want := range []string{
		"scripts/ci/kind-node/README.md", "scripts/ci/docker/README.md",
		"scripts/ci/docker/runc-capbnd-wrapper", "scripts/ci/kind-node/iptables-wrapper", ".ci/run",
		"CONTRIBUTING.md", "README.zh-TW.md", "docs/zh-TW/README.md",
	} {
		if !slices.Contains(files, filepath.Join(root, want)) {
			t.Errorf("%s is not held to the glossary", want)
		}
	}
	if slices.Contains(files, filepath.Join(root, "docs", glossaryFile)) {
		t.Errorf("the glossary itself is checked against its own avoid column")
	}
}

// shellScript 判斷沒有 .sh 副檔名的檔案是不是 shell 腳本：第一行是 bash 或 sh 的 shebang。
//
// shellScript tells whether a file without a .sh extension is a shell
// script: its first line is a bash or sh shebang.
func shellScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	first, _, _ := bufio.NewReader(f).ReadLine()
	for _, shebang := range []string{"#!/usr/bin/env bash", "#!/bin/sh", "#!/bin/bash", "#!/usr/bin/env sh"} {
		if string(first) == shebang || strings.HasPrefix(string(first), shebang+" ") {
			return true
		}
	}
	return false
}

// zhMarkdown 是所有含中文說明的 Markdown：根目錄與各步驟的 README.zh-TW.md、docs/zh-TW 的每一頁，
// 以及有「## 繁體中文」一節的雙語檔案（CONTRIBUTING.md、scripts/ 底下的 README）。
// withGlossary 為 false 時不含詞彙表本身：它的「避免」一欄本來就寫著那些詞。
//
// zhMarkdown are all the Markdown files with zh-TW prose: the root and step
// README.zh-TW.md files, every page of docs/zh-TW, and the bilingual files
// with a "## 繁體中文" section (CONTRIBUTING.md, the READMEs under
// scripts/). Without withGlossary the glossary itself is left out: its avoid
// column spells those words on purpose.
func zhMarkdown(t *testing.T, withGlossary bool) []string {
	t.Helper()
	var files []string
	for _, f := range markdownFiles(t) {
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "docs/"+glossaryFile:
			if withGlossary {
				files = append(files, f)
			}
		case strings.HasSuffix(rel, ".zh-TW.md"), strings.HasPrefix(rel, "docs/zh-TW/"):
			files = append(files, f)
		default:
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(strings.Split(string(data), "\n"), zhHalf) {
				files = append(files, f)
			}
		}
	}
	return files
}

// zhFiles 是所有要照詞彙表檢查的檔案：zhMarkdown（詞彙表除外）、step*/、internal/、scripts/
// 與 docs/ 底下的 Go 檔與 .sh 檔、即時頁面的檔案，以及 scripts/ 與 .ci/ 底下沒有副檔名、但以 shebang 開頭的 shell 腳本。
//
// zhFiles are all the files held to the glossary: zhMarkdown (the glossary
// aside), the Go and .sh files under step*/, internal/, scripts/ and docs/,
// the live page's files, and the shell scripts without an extension under
// scripts/ and .ci/, recognised by their shebang.
func zhFiles(t *testing.T) []string {
	t.Helper()
	files := zhMarkdown(t, false)
	dirs, _ := filepath.Glob(filepath.Join(root, "step[0-9][0-9]-*"))
	dirs = append(dirs, filepath.Join(root, "internal"), filepath.Join(root, "scripts"), filepath.Join(root, "docs"), filepath.Join(root, ".ci"))
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			switch {
			case strings.HasSuffix(path, ".go"), strings.HasSuffix(path, ".sh"):
				files = append(files, path)
			case strings.HasPrefix(rel, "internal/liveview/page/"):
				// 即時頁面的文字（i18n.js 的中文）與註解。 / The live page's strings (i18n.js's zh-TW) and comments.
				files = append(files, path)
			case filepath.Ext(path) == "" && (strings.HasPrefix(rel, "scripts/") || strings.HasPrefix(rel, ".ci/")) && shellScript(path):
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
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

// 情境：這個檢查會抓到它要抓的東西：在暫存的中文頁面、Go 檔（註解與字串）、雙語 README 的中文那一半，
// 以及沒有副檔名的 shell 腳本裡各種下一個要避免的詞，五處都被回報並寫明行號；同一頁裡正確的用詞
// （包括「文件」這類容易誤判的詞）、雙語 README 英文那一半引用的同一個詞，都不被回報。
//
// The scenario: the check catches what it is for: an avoided word planted in
// a temporary zh-TW page, in a Go comment and a Go string, in the zh-TW half
// of a bilingual README and in a shell script without an extension is
// reported five times, with its line; the correct wording beside them
// (including a false friend such as 文件), and the same word quoted in the
// README's English half, are not.
func TestGlossaryCatchesPlantedDefects(t *testing.T) {
	avoid, err := avoidList(glossaryFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "page.zh-TW.md")
	code := filepath.Join(dir, "code.go")
	readme := filepath.Join(dir, "README.md")
	wrapper := filepath.Join(dir, "some-wrapper")
	notShell := filepath.Join(dir, "notes")
	files := map[string]string{
		page:     "# 標題\n\nReflector（負責 List 與 watch 的元件）先 List 再 watch；詳見文件。\n\n這時反射器會重新 List。\n",
		code:     "package x\n\n// f 回傳 Pod 的 key。\n//\n// f returns the pod's key.\nfunc f() {}\n\n// g 先列出所有 Pod，再開始 watch。\n//\n// g lists every pod, then watches.\nfunc g() {}\n\n// 把黃金檔放在 testdata。 / The golden file lives in testdata.\nvar h = 1\n\nvar label = \"從快取回應\"\nvar caption = \"反射器\"\n",
		readme:   "# A title / 標題\n\n## 繁體中文\n\n這裡誤用了監看。\n\n## English\n\nThe word 監看 is quoted here on purpose.\n",
		wrapper:  "#!/usr/bin/env bash\n# 先停掉反射器。 / Stop the Reflector first.\nexec true\n",
		notShell: "#!/usr/bin/env python3\n# 反射器\n",
	}
	for f, s := range files {
		if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if !shellScript(wrapper) || shellScript(notShell) || shellScript(code) {
		t.Errorf("shellScript: want true for a bash shebang only; got %v (bash), %v (python), %v (Go)", shellScript(wrapper), shellScript(notShell), shellScript(code))
	}
	rec := &recorder{}
	checkGlossary(rec, avoid, []string{page, code, readme, wrapper})
	wantReported(t, rec.String(),
		page+":5: 「反射器」",
		code+":13: 「黃金檔」",
		code+":17: 「反射器」",
		readme+":5: 「監看」",
		wrapper+":2: 「反射器」")
}

// wantReported 確認每個埋下的錯誤都被回報，而且只有它們。
//
// wantReported checks that every planted defect was reported, and nothing
// else.
func wantReported(t *testing.T, got string, want ...string) {
	t.Helper()
	t.Logf("planted defects reported:\n%s", got)
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("planted defect not reported (%q); got:\n%s", w, got)
		}
	}
	if n := strings.Count(got, "\n"); n != len(want) {
		t.Errorf("want exactly the %d planted defects reported, got %d:\n%s", len(want), n, got)
	}
}

// 情境：說明規則的檢查會抓到它要抓的東西：同一個術語連著兩個說明、括號裡的括號（同一行，
// 以及跨行的），三處都被回報並寫明行號；正確的說明、行內程式碼與程式碼區塊裡的括號、
// 兩個清單項目各自的括號，都不被回報。
//
// The scenario: the gloss check catches what it is for: a term with two
// glosses in a row and a parenthesis inside a parenthesis (on one line, and
// across lines) are reported, three times, with their lines; a correct gloss,
// brackets in inline code or in a code block, and brackets in two separate
// list items are not.
func TestGlossRuleCatchesPlantedDefects(t *testing.T) {
	page := filepath.Join(t.TempDir(), "gloss.zh-TW.md")
	text := strings.Join([]string{
		"# 標題", // 1
		"",
		"Reflector（負責 List 與 watch 的元件）（負責推進佇列）會先 List。", // 3
		"",
		"取得初始狀態（WatchList（以 watch 串流送出初始狀態）或 LIST）。", // 5
		"",
		"跨行的括號（第一行",   // 7
		"接著（巢狀）第二行）。", // 8
		"",
		"正確的寫法：**墓碑**（tombstone），`f（x）`（說明），`a`（甲）`b`（乙），（一）、（二）。", // 10
		"",
		"```go",
		"// 程式碼裡（可以（巢狀））（也行）",
		"```",
		"",
		"- 沒有關上的括號（這一項", // 16
		"- 下一項（與上一項無關）", // 17
		"",
	}, "\n")
	if err := os.WriteFile(page, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	checkGlosses(rec, []string{page})
	wantReported(t, rec.String(),
		page+":3: 「）（」",
		page+":5: a full-width parenthesis inside another",
		page+":8: a full-width parenthesis inside another")
}
