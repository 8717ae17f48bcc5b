// testtimes 從標準輸入讀 go test -json，印出每個套件與最慢的頂層測試各花了多久（scripts/ci/test-times.sh 用它）。
//
// testtimes reads go test -json on standard input and prints how long each
// package and the slowest top-level tests took (scripts/ci/test-times.sh
// uses it).
//
//	go test -count=1 -json ./... | go run ./internal/cmd/testtimes -top 20
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testtimes"
)

func main() {
	top := flag.Int("top", 15, "how many of the slowest top-level tests to list")
	module := flag.String("module", "github.com/informer-walkthrough/informer-walkthrough", "the module path to cut from package names")
	flag.Parse()
	if *top < 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go test -json ... | testtimes [-top N] (N at least 0, no arguments)")
		os.Exit(2)
	}
	rep, err := testtimes.Read(os.Stdin, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testtimes: %v\n", err)
		os.Exit(1)
	}
	if len(rep.Packages) == 0 {
		fmt.Fprintln(os.Stderr, "testtimes: no package results on standard input (was it go test -json?)")
		os.Exit(1)
	}
	rep.Write(os.Stdout, *module, *top)
}
