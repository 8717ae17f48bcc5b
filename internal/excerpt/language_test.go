package excerpt

import "testing"

// 情境：一段有各種註解形狀的程式碼，分成兩種語言：文件註解（兩段加上一張圖）、沒有空行的中英兩段、
// 單行的「中文 / English」、工具指示。程式碼一行都不少，指示兩邊都留著。
//
// The story: source with every shape of comment, split into the two
// languages: a doc comment (two paragraphs and a diagram each), a Chinese
// and an English paragraph with no blank line between, a one-line
// "中文 / English", a tool directive. No line of code is lost, and the
// directive stays in both.
func TestOneLanguage(t *testing.T) {
	src := `// f 做一件事：
//
//	a → b
//
// f does one thing:
//
//	a → b
func f() {
	// 中文的說明，
	// 兩行。
	// The English,
	// in two lines.
	x := 1
	// 一行中文。 / One line of English.
	//lint:ignore U1000 留著 / kept
	_ = x
}
`
	wantEn := `// f does one thing:
//
//	a → b
func f() {
	// The English,
	// in two lines.
	x := 1
	// One line of English.
	//lint:ignore U1000 留著 / kept
	_ = x
}
`
	wantZh := `// f 做一件事：
//
//	a → b
func f() {
	// 中文的說明，
	// 兩行。
	x := 1
	// 一行中文。
	//lint:ignore U1000 留著 / kept
	_ = x
}
`
	if got := OneLanguage(src, false); got != wantEn {
		t.Errorf("English:\n%s\nwant:\n%s", got, wantEn)
	}
	if got := OneLanguage(src, true); got != wantZh {
		t.Errorf("zh-TW:\n%s\nwant:\n%s", got, wantZh)
	}
}
