package docs

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// errorer 是 *testing.T 的一小部分，讓檢查也能對一個種下缺陷的檔案跑一次。
//
// errorer is the small part of *testing.T the check needs, so it can also
// run on a file with planted defects.
type errorer interface {
	Errorf(format string, args ...any)
}

var (
	// 沒有被當成強調的 * 或 **：緊貼著文字的星號留在純文字裡。
	// A * or ** that did not become emphasis: an asterisk touching text left in plain text.
	literalEmphasis = regexp.MustCompile(`\*+\S|\S\*+`)
	// 沒有變成連結的 [文字](目標)。 / A [text](target) that did not become a link.
	literalLink = regexp.MustCompile(`\]\([^)]*\)`)
	// 沒有變成標題的 # 行（例如 #標題，少了空白）。 / A # line that did not become a heading (say, #Heading without the space).
	literalHeading = regexp.MustCompile(`^#{1,6}\S`)
)

// 情境：每個 Markdown 檔都以 CommonMark 渲染。強調記號、連結與標題必須真的變成強調、
// 連結與標題，而不是以星號、方括號或井號的樣子留在文字裡。全形標點旁的 * 最容易出事：
// 「）」之後、中文字之前的 ** 在 CommonMark 裡關不起來。
//
// The story: every Markdown file is rendered as CommonMark. Emphasis markers,
// links and headings must become emphasis, links and headings, not stay in
// the text as asterisks, brackets or hashes. A * next to full-width
// punctuation is the usual culprit: a ** after 「）」 and before a CJK
// character cannot close in CommonMark.
func TestMarkdownRenders(t *testing.T) {
	for _, file := range markdownFiles(t) {
		checkRendering(t, file)
	}
}

// checkRendering 用 goldmark（程式碼託管網站的渲染器所依循的 CommonMark 實作，加上 GFM）
// 解析一個 Markdown 檔，回報留在純文字裡的強調記號、連結與標題。
//
// checkRendering parses one Markdown file with goldmark (the CommonMark
// implementation the code host's renderer follows, plus GFM) and reports
// emphasis markers, links and headings left in plain text.
func checkRendering(e errorer, file string) {
	src, err := os.ReadFile(file)
	if err != nil {
		e.Errorf("%v", err)
		return
	}
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindCodeSpan, ast.KindCodeBlock, ast.KindFencedCodeBlock, ast.KindHTMLBlock, ast.KindRawHTML, ast.KindAutoLink:
			return ast.WalkSkipChildren, nil
		case ast.KindText:
			// 連續的文字節點接起來看：沒變成連結的 [文字](目標) 會被拆成好幾個節點。
			// Consecutive text nodes are read together: a [text](target) that is not a link is split into several.
			if _, prevText := n.PreviousSibling().(*ast.Text); prevText {
				return ast.WalkContinue, nil
			}
			seg := n.(*ast.Text).Segment
			var sb strings.Builder
			for m := n; m != nil; m = m.NextSibling() {
				txt, ok := m.(*ast.Text)
				if !ok {
					break
				}
				sb.Write(txt.Segment.Value(src))
			}
			s := sb.String()
			line := bytes.Count(src[:seg.Start], []byte("\n")) + 1
			if literalEmphasis.MatchString(s) {
				e.Errorf("%s:%d: %q renders with a literal asterisk (emphasis that did not open or close)", file, line, s)
			}
			if literalLink.MatchString(s) {
				e.Errorf("%s:%d: %q renders as text, not as a link", file, line, s)
			}
			if _, isPara := n.Parent().(*ast.Paragraph); isPara && n.PreviousSibling() == nil && literalHeading.MatchString(s) {
				e.Errorf("%s:%d: %q renders as text, not as a heading (a space after the #?)", file, line, s)
			}
		}
		return ast.WalkContinue, nil
	})
}

// 情境：這個檢查本身會抓到它要抓的東西：在一段中文裡放進 review 找到的那種強調、
// 一個斷掉的連結與一個少了空白的標題，三個都被找出來。
//
// The story: the check itself catches what it is for: a zh-TW paragraph with
// the kind of emphasis the review found, a broken link and a heading without
// its space; all three are reported.
func TestMarkdownRenderCatchesPlantedDefects(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/planted.md"
	planted := "# 標題\n\n以**墓碑（tombstone）**的形式出現。\n\n見 [第 1 章](第 1 章.md)。\n\n#沒有空白\n\n[正常的連結](01.md)，**正常的強調**。\n"
	if err := os.WriteFile(file, []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	checkRendering(rec, file)
	want := []string{"literal asterisk", "not as a link", "not as a heading"}
	for _, w := range want {
		if !strings.Contains(rec.String(), w) {
			t.Errorf("planted defect %q not reported; got:\n%s", w, rec.String())
		}
	}
	if n := strings.Count(rec.String(), "\n"); n != len(want) {
		t.Errorf("want exactly %d reports (the correct link and emphasis are fine), got %d:\n%s", len(want), n, rec.String())
	}
}

// recorder 收集 checkRendering 的報告。 / recorder collects checkRendering's reports.
type recorder struct{ strings.Builder }

func (r *recorder) Errorf(format string, args ...any) { fmt.Fprintf(r, format+"\n", args...) }
