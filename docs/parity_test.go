package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// section 是一頁裡兩個標題之間的內容，數得出來的部分：段落（清單項目裡的文字也算）、清單項目、
// 表格列、程式碼區塊，以及每個段落裡的行內程式碼。兩種語言的同一節應該一樣。
//
// section is what can be counted between two headings of a page:
// paragraphs (a list item's text counts as one), list items, table rows,
// code blocks, and the inline code of each paragraph. The same section in
// both languages should agree.
type section struct {
	heading                             string
	paragraphs, items, rows, codeBlocks int
	codeSpans                           [][]string
}

func (s *section) summary() string {
	return fmt.Sprintf("%d paragraphs, %d list items, %d table rows, %d code blocks", s.paragraphs, s.items, s.rows, s.codeBlocks)
}

// sections 以 goldmark 解析一頁，切成各節。
//
// sections parses a page with goldmark and cuts it into sections.
func sections(file string) ([]*section, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	cur := &section{heading: "(top)"}
	all := []*section{cur}
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			cur = &section{heading: fmt.Sprintf("h%d #%d", n.Level, len(all))}
			all = append(all, cur)
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock:
			cur.paragraphs++
			var spans []string
			_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
				if cs, ok := c.(*ast.CodeSpan); ok && entering {
					spans = append(spans, codeSpanText(cs, src))
					return ast.WalkSkipChildren, nil
				}
				return ast.WalkContinue, nil
			})
			slices.Sort(spans)
			cur.codeSpans = append(cur.codeSpans, spans)
			return ast.WalkSkipChildren, nil
		case *ast.ListItem:
			cur.items++
		case *east.TableRow, *east.TableHeader:
			cur.rows++
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			cur.codeBlocks++
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return all, err
}

func codeSpanText(cs *ast.CodeSpan, src []byte) string {
	var sb strings.Builder
	for c := cs.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			sb.Write(t.Segment.Value(src))
		}
	}
	// CommonMark 把行內程式碼裡的換行當成空白。 / CommonMark treats a line break inside inline code as a space.
	return strings.ReplaceAll(sb.String(), "\n", " ")
}

// compareParity 比較兩頁，每一節回報第一個不同之處。
//
// compareParity compares two pages and reports the first difference of each
// section.
func compareParity(e errorer, en, zh string) {
	a, err := sections(en)
	if err != nil {
		e.Errorf("%v", err)
		return
	}
	b, err := sections(zh)
	if err != nil {
		e.Errorf("%v", err)
		return
	}
	if len(a) != len(b) {
		e.Errorf("%s has %d sections, %s has %d", en, len(a), zh, len(b))
		return
	}
	for i := range a {
		if a[i].summary() != b[i].summary() {
			e.Errorf("%s vs %s, section %d: en has %s; zh-TW has %s", en, zh, i, a[i].summary(), b[i].summary())
			continue
		}
		for p := range a[i].codeSpans {
			if !slices.Equal(a[i].codeSpans[p], b[i].codeSpans[p]) {
				e.Errorf("%s vs %s, section %d, paragraph %d: inline code differs:\n  en:    %q\n  zh-TW: %q", en, zh, i, p+1, a[i].codeSpans[p], b[i].codeSpans[p])
			}
		}
	}
}

// pagePairs 是每一對英文與中文頁面。 / pagePairs are the English and zh-TW page pairs.
func pagePairs(t *testing.T) [][2]string {
	t.Helper()
	pairs := [][2]string{{"../README.md", "../README.zh-TW.md"}}
	steps, _ := filepath.Glob("../step[0-9][0-9]-*/README.md")
	for _, s := range steps {
		pairs = append(pairs, [2]string{s, strings.TrimSuffix(s, ".md") + ".zh-TW.md"})
	}
	en, _ := filepath.Glob("en/*.md")
	for _, f := range en {
		pairs = append(pairs, [2]string{f, filepath.Join("zh-TW", filepath.Base(f))})
	}
	return pairs
}

// 情境：英文與中文頁面不只標題相同，每一節的段落、清單項目、表格列與程式碼區塊數量也相同，
// 對應段落裡的行內程式碼也一樣：少翻一段、漏掉一個項目或一個指令，就會被抓到。
//
// The story: English and zh-TW pages agree not only in their headings but in
// each section's number of paragraphs, list items, table rows and code
// blocks, and in the inline code of corresponding paragraphs: a paragraph
// left untranslated, a list item or a command dropped, is caught.
func TestContentParity(t *testing.T) {
	for _, p := range pagePairs(t) {
		compareParity(t, p[0], p[1])
	}
}

// 情境：這個檢查本身會抓到它要抓的東西：中文版少了一段、少了一個清單項目、
// 一個指令寫得不一樣，三節各回報一次；內容一致的那一節不回報。
//
// The story: the check itself catches what it is for: the zh-TW page drops a
// paragraph, drops a list item, and spells a command differently; each of
// those three sections is reported once, and the section that agrees is not.
func TestContentParityCatchesPlantedDefects(t *testing.T) {
	dir := t.TempDir()
	en := "# Title\n\n## One\n\nFirst.\n\nSecond.\n\n## Two\n\n- a\n- b\n\n## Three\n\nRun `go run ./step01`.\n\n## Four\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n"
	zh := "# 標題\n\n## 一\n\n第一段。\n\n## 二\n\n- 甲\n\n## 三\n\n執行 `go run ./step02`。\n\n## 四\n\n| 甲 | 乙 |\n| --- | --- |\n| 1 | 2 |\n"
	enFile, zhFile := filepath.Join(dir, "en.md"), filepath.Join(dir, "zh.md")
	for f, s := range map[string]string{enFile: en, zhFile: zh} {
		if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rec := &recorder{}
	compareParity(rec, enFile, zhFile)
	got := rec.String()
	for _, want := range []string{
		"section 2: en has 2 paragraphs",
		"section 3: en has 2 paragraphs, 2 list items",
		"section 4, paragraph 1: inline code differs",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("planted defect not reported (%q); got:\n%s", want, got)
		}
	}
	if strings.Contains(got, "section 5") {
		t.Errorf("the table section agrees but was reported:\n%s", got)
	}
}
