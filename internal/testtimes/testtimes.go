// Package testtimes 讀 go test -json 的事件串流，說出時間花在哪裡：每個套件的測試執行檔跑了多久，
// 以及最慢的頂層測試。scripts/ci/test-times.sh 用它，README 的測試時間由它量出。
//
// Package testtimes reads the event stream of go test -json and says where
// the time went: how long each package's test binary ran, and the slowest
// top-level tests. scripts/ci/test-times.sh uses it; the README's test
// figures come from it.
package testtimes

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// event 是 go test -json 的一行（cmd/test2json 的 TestEvent），只留用得到的欄位。
//
// event is one line of go test -json (cmd/test2json's TestEvent), with the
// fields used here.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// Timing 是一個套件或一個測試花的時間與結果。 / Timing is one package's or test's time and outcome.
type Timing struct {
	Package string
	// Test 是頂層測試的名字；套件的 Timing 沒有。 / Test is the top-level test's name; empty for a package.
	Test    string
	Elapsed time.Duration
	// Action 是 pass、fail 或 skip。 / Action is pass, fail or skip.
	Action string
}

// Report 是整個事件串流的摘要。 / Report summarises a whole event stream.
type Report struct {
	// Packages 由慢到快。 / Packages, slowest first.
	Packages []Timing
	// Tests 是頂層測試（名字沒有 /），由慢到快。 / Tests are the top-level tests (no / in the name), slowest first.
	Tests []Timing
}

// Read 讀完整個事件串流。失敗的測試與套件的輸出、建置的輸出，以及不是 JSON 的行，都照原樣寫到 other：
// 時間之外，失敗的原因也看得到。
//
// Read reads the whole event stream. The output of failed tests and
// packages, build output, and lines that are not JSON all go to other as
// they are: besides the times, why something failed is there to read.
func Read(r io.Reader, other io.Writer) (Report, error) {
	var rep Report
	outputs := map[[2]string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(other, "%s\n", line)
			continue
		}
		key := [2]string{e.Package, e.Test}
		switch e.Action {
		case "output":
			outputs[key] = append(outputs[key], e.Output)
			continue
		case "build-output":
			fmt.Fprint(other, e.Output)
			continue
		case "fail":
			fmt.Fprint(other, strings.Join(outputs[key], ""))
		case "pass", "skip":
		default:
			continue
		}
		delete(outputs, key)
		t := Timing{Package: e.Package, Test: e.Test, Action: e.Action, Elapsed: time.Duration(e.Elapsed * float64(time.Second))}
		switch {
		case e.Test == "":
			rep.Packages = append(rep.Packages, t)
		case !strings.Contains(e.Test, "/"):
			rep.Tests = append(rep.Tests, t)
		}
	}
	for _, list := range [][]Timing{rep.Packages, rep.Tests} {
		sort.SliceStable(list, func(i, j int) bool { return list[i].Elapsed > list[j].Elapsed })
	}
	return rep, sc.Err()
}

// Write 印出每個套件，以及最慢的 top 個頂層測試。套件名稱去掉 module 路徑。
//
// Write prints every package and the top slowest top-level tests, with the
// module path cut from package names.
func (rep Report) Write(w io.Writer, module string, top int) {
	short := func(pkg string) string {
		if s := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/"); s != "" {
			return s
		}
		return "."
	}
	var sum time.Duration
	fmt.Fprintln(w, "packages, slowest first (how long each test binary ran; go test runs as many at once as there are cores):")
	for _, p := range rep.Packages {
		sum += p.Elapsed
		fmt.Fprintf(w, "  %7.1f s  %-4s  %s\n", p.Elapsed.Seconds(), p.Action, short(p.Package))
	}
	fmt.Fprintf(w, "  %7.1f s  in all, one after the other\n", sum.Seconds())
	if top > len(rep.Tests) {
		top = len(rep.Tests)
	}
	fmt.Fprintf(w, "the %d slowest of %d top-level tests:\n", top, len(rep.Tests))
	for _, t := range rep.Tests[:top] {
		fmt.Fprintf(w, "  %7.1f s  %-4s  %s %s\n", t.Elapsed.Seconds(), t.Action, short(t.Package), t.Test)
	}
}
