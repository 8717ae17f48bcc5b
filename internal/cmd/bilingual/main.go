// bilingual 列出 step*/、internal/ 與 scripts/ 裡只有一種語言的註解區塊、行尾註解，以及不以名字開頭的文件段落；有問題時以 1 結束。
//
// bilingual lists the comment blocks in step*/, internal/ and scripts/ that
// speak one language only, end-of-line comments, and doc paragraphs that do
// not start with their name; it exits 1 when it finds any.
//
//	go run ./internal/cmd/bilingual
package main

import (
	"fmt"
	"os"

	"github.com/informer-walkthrough/informer-walkthrough/internal/bilingual"
)

func main() {
	files := 0
	problems, err := bilingual.CheckTree(".", func(path string) ([]byte, error) {
		files++
		return os.ReadFile(path)
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "bilingual: %v\n", err)
		os.Exit(1)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "bilingual: %d comment block(s) break the rule\n", len(problems))
		os.Exit(1)
	}
	// 一切正常時也印一行，讓人知道它真的檢查過。 / Say one line when all is well too, so it is clear the check ran.
	fmt.Printf("bilingual: %d Go files checked; every comment block has zh-TW and English\n", files)
}
