package testenv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// racy 是一個故意有 data race 的小程式：兩個 goroutine 沒有同步地寫同一個變數。
//
// racy is a small program with a planted data race: two goroutines write one
// variable without synchronisation.
const racy = `package main

import "fmt"

func main() {
	n := 0
	done := make(chan bool)
	go func() { n++; done <- true }()
	n++
	<-done
	fmt.Println("ran", n)
}
`

// 情境：在一份暫存的複本裡種一個 data race，用 Build 給 go 的同一組參數建起來再執行。這個測試執行檔帶著
// race detector（go test -race，TIER=full scripts/test.sh 就是這樣跑步驟的）時，建出來的程式一定要報出那個 race：
// 以執行檔跑的步驟測試也在 detector 底下；沒帶著時，程式照常執行、不報。
//
// The story: a data race is planted in a scratch copy, built with the same
// arguments Build gives go, and run. When this test binary has the race
// detector (go test -race, as TIER=full scripts/test.sh runs the steps), the program
// must report that race: the step tests that run a binary are under the
// detector too; without it, the program runs and reports nothing.
func TestBuildCarriesTheRaceDetector(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module scratch\n\ngo 1.21\n", "main.go": racy} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "racy")
	build := exec.Command("go", BuildArgs(bin, ".")...)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(build.Args[1:], " "), err, out)
	}
	out, err := exec.Command(bin).CombinedOutput()
	reported := strings.Contains(string(out), "WARNING: DATA RACE")
	var exit *exec.ExitError
	switch {
	case RaceEnabled && (!reported || !errors.As(err, &exit)):
		t.Fatalf("built under go test -race, the planted race went unreported (err %v):\n%s", err, out)
	case !RaceEnabled && (reported || err != nil):
		t.Fatalf("built without the race detector, the program should just run (err %v):\n%s", err, out)
	}
}
