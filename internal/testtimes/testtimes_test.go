package testtimes

import (
	"bytes"
	"strings"
	"testing"
)

// stream 是一段 go test -json 的輸出：兩個套件、三個頂層測試（一個失敗）、一個子測試，還有一行不是 JSON 的。
//
// stream is a piece of go test -json output: two packages, three top-level
// tests (one fails), one subtest, and a line that is not JSON.
const stream = `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestQuick"}
{"Action":"output","Package":"m/a","Test":"TestQuick","Output":"=== RUN   TestQuick\n"}
{"Action":"pass","Package":"m/a","Test":"TestQuick","Elapsed":0.5}
{"Action":"run","Package":"m/a","Test":"TestSlow"}
{"Action":"output","Package":"m/a","Test":"TestSlow","Output":"    slow_test.go:9: the reason it failed\n"}
{"Action":"run","Package":"m/a","Test":"TestSlow/sub"}
{"Action":"pass","Package":"m/a","Test":"TestSlow/sub","Elapsed":9}
{"Action":"fail","Package":"m/a","Test":"TestSlow","Elapsed":9.25}
{"Action":"fail","Package":"m/a","Elapsed":10}
not json: a build message
{"Action":"build-output","ImportPath":"m/b","Output":"b.go:1: compiler says\n"}
{"Action":"pass","Package":"m/b","Test":"TestMiddle","Elapsed":2}
{"Action":"pass","Package":"m/b","Elapsed":20}
`

func TestRead(t *testing.T) {
	var other bytes.Buffer
	rep, err := Read(strings.NewReader(stream), &other)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 2 || rep.Packages[0].Package != "m/b" || rep.Packages[1].Action != "fail" {
		t.Errorf("packages = %+v, want m/b (20 s) then m/a (failed)", rep.Packages)
	}
	var names []string
	for _, tt := range rep.Tests {
		names = append(names, tt.Test)
	}
	if got := strings.Join(names, " "); got != "TestSlow TestMiddle TestQuick" {
		t.Errorf("top-level tests slowest first = %q, want no subtest and TestSlow TestMiddle TestQuick", got)
	}
	for _, want := range []string{"the reason it failed", "not json: a build message", "compiler says"} {
		if !strings.Contains(other.String(), want) {
			t.Errorf("other lacks %q:\n%s", want, other.String())
		}
	}
	if strings.Contains(other.String(), "=== RUN   TestQuick") {
		t.Errorf("a passing test's output was shown:\n%s", other.String())
	}

	var out bytes.Buffer
	rep.Write(&out, "m", 2)
	want := `packages, slowest first (how long each test binary ran; go test runs as many at once as there are cores):
     20.0 s  pass  b
     10.0 s  fail  a
     30.0 s  in all, one after the other
the 2 slowest of 3 top-level tests:
      9.2 s  fail  a TestSlow
      2.0 s  pass  b TestMiddle
`
	if out.String() != want {
		t.Errorf("Write =\n%s\nwant\n%s", out.String(), want)
	}
}
