package scripts_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// walk 是 README 裡的一段練習：第一個終端機的指令（最後一行是 go run，會一直執行），
// 第二個終端機的指令，以及它們應該產生的輸出（README 裡 golden 標記的那一段）。
//
// walk is one exercise in a README: the first terminal's commands (the last
// is a go run that keeps running), the second terminal's commands, and the
// output they should produce (the README's golden-marked block).
type walk struct {
	readme, name string
	term1, term2 []string
	// prefix 表示 README 的輸出只到某個時間點為止（之後的指令會再加上幾行）。
	// prefix means the README's output stops at some point (later commands add lines).
	prefix bool
	want   []string
}

var (
	walkMarker   = regexp.MustCompile(`^<!-- walk (\S+): terminal ([12])( prefix)? -->$`)
	goldenMarker = regexp.MustCompile(`^<!-- golden:(\S+) -->$`)
)

// parseWalks 讀出一份 README 裡的每一段練習，依出現的順序。
//
// parseWalks reads every exercise of one README, in the order they appear.
func parseWalks(t *testing.T, readme string) []*walk {
	t.Helper()
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var walks []*walk
	byName := map[string]*walk{}
	blocks := map[string][]string{}
	for i := 0; i < len(lines); i++ {
		if m := goldenMarker.FindStringSubmatch(lines[i]); m != nil {
			body, end := fenced(t, readme, lines, i+1)
			blocks[m[1]], i = body, end
			continue
		}
		m := walkMarker.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		w := byName[m[1]]
		if w == nil {
			w = &walk{readme: readme, name: m[1]}
			byName[m[1]] = w
			walks = append(walks, w)
		}
		body, end := fenced(t, readme, lines, i+1)
		i = end
		var cmds []string
		for _, line := range body {
			if cmd, _, _ := strings.Cut(line, "#"); strings.TrimSpace(cmd) != "" {
				cmds = append(cmds, strings.TrimSpace(cmd))
			}
		}
		if m[2] == "1" {
			w.term1 = cmds
		} else {
			w.term2, w.prefix = cmds, m[3] != ""
		}
	}
	for _, w := range walks {
		w.want = blocks[w.name]
		switch {
		case w.want == nil:
			t.Fatalf("%s: walk %s has no <!-- golden:%s --> block", readme, w.name, w.name)
		case len(w.term1) == 0 || !strings.HasPrefix(w.term1[len(w.term1)-1], "go run "):
			t.Fatalf("%s: walk %s: the first terminal's block must end with go run", readme, w.name)
		case len(w.term2) == 0:
			t.Fatalf("%s: walk %s has no second-terminal block", readme, w.name)
		}
	}
	return walks
}

// fenced 回傳從 lines[start] 開始的圍欄程式碼區塊內容，以及結尾那一行的位置。
//
// fenced returns the body of the fenced code block opening at lines[start],
// and the index of its closing line.
func fenced(t *testing.T, readme string, lines []string, start int) ([]string, int) {
	t.Helper()
	if start >= len(lines) || !strings.HasPrefix(lines[start], "```") {
		t.Fatalf("%s:%d: a marker must be followed by a fenced code block", readme, start)
	}
	for i := start + 1; i < len(lines); i++ {
		if lines[i] == "```" {
			return lines[start+1 : i], i
		}
	}
	t.Fatalf("%s:%d: unclosed code block", readme, start+1)
	return nil, 0
}

// 情境：一個學習者照著每一步（stepNN-*）的 README，一份接一份、逐字執行裡面的指令，全都對著同一個叢集。
// 每一段練習的輸出都跟 README 展示的一樣。指令是從 README 本身讀出來的，README 與測試不會各說各話；
// 中文版的指令必須跟英文版一模一樣。
//
// The story: a learner follows the README of every step (stepNN-*), one after
// the other, running their commands exactly as written, all against one cluster.
// Every exercise prints what its README shows. The commands are read from the
// READMEs themselves, so README and test cannot drift; the zh-TW READMEs must
// hold the very same commands.
func TestREADMEsInOrder(t *testing.T) {
	// 它有自己的 lab（叢集、狀態目錄、kubeconfig、連接埠），README 的指令也不用固定的埠，所以跟其他 lab 的測試同時執行。
	// It has a lab of its own (cluster, state directory, kubeconfig, port) and the READMEs' commands use no fixed port,
	// so it runs beside the other labs' tests.
	t.Parallel()
	readmes, _ := filepath.Glob("../step[0-9][0-9]-*/README.md")
	if len(readmes) == 0 {
		t.Fatal("no step READMEs found")
	}
	var walks []*walk
	for _, readme := range readmes {
		en := parseWalks(t, readme)
		zh := parseWalks(t, strings.TrimSuffix(readme, ".md")+".zh-TW.md")
		if len(en) == 0 {
			t.Fatalf("%s has no walk markers", readme)
		}
		if fmt.Sprint(commands(en)) != fmt.Sprint(commands(zh)) {
			t.Errorf("%s and its zh-TW twin run different commands:\n%v\n%v", readme, commands(en), commands(zh))
		}
		walks = append(walks, en...)
	}

	l := newLab(t, "lab-readmes")
	for _, w := range walks {
		t.Logf("%s: %s", w.readme, w.name)
		got := l.walk(w)
		// 時機造成的差異（step 04 的 push 先到、同步合併）只接受 README 說明過的那幾種，由 compareWalk 判斷；
		// 其他的差異就是失敗，不重走一次。
		// Differences that timing makes (step 04's pushes arriving first, syncs merging) are accepted only as the
		// READMEs describe them, which compareWalk decides; any other difference fails, with no second walk.
		msg := compareWalk(w, got)
		if msg != "" {
			t.Fatalf("%s, %s: %s\n--- README\n%s\n--- got\n%s", w.readme, w.name, msg, strings.Join(w.want, "\n"), strings.Join(got, "\n"))
		}
	}
}

func commands(walks []*walk) [][]string {
	var all [][]string
	for _, w := range walks {
		all = append(all, w.term1, w.term2)
	}
	return all
}

// quietFor 是「輸出停下來了」的判斷：這麼久沒有新的一行，才執行下一個指令，
// 就像一個人看著終端機等它停下來。
//
// quietFor is what "the output has settled" means: no new line for this
// long before the next command, as a person watching the terminal would wait.
const quietFor = 500 * time.Millisecond

// walk 執行一段練習，回傳這一步印出的行（已正規化）。
//
// walk runs one exercise and returns the lines the step printed
// (normalized).
func (l *lab) walk(w *walk) []string {
	t := l.t
	t.Helper()
	shell := func(cmd string) *exec.Cmd {
		c := exec.Command("bash", "-c", cmd)
		c.Dir = ".."
		c.Env = l.env
		return c
	}
	for _, cmd := range w.term1[:len(w.term1)-1] {
		if out, err := shell(cmd).CombinedOutput(); err != nil {
			t.Fatalf("%s: %s: %v\n%s", w.name, cmd, err, out)
		}
	}
	out := &testenv.Output{}
	step := shell("exec " + w.term1[len(w.term1)-1])
	step.Stdout, step.Stderr = out, out
	// 自己的行程群組：Ctrl-C 送給整個群組，就像終端機那樣。
	// A process group of its own: Ctrl-C goes to the whole group, as a terminal sends it.
	step.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := step.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = step.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-step.Process.Pid, syscall.SIGKILL)
		<-done
	})
	out.Wait(t, 1, "watching from there")
	settle(t, out)
	for _, cmd := range w.term2 {
		if res, err := shell(cmd).CombinedOutput(); err != nil {
			t.Fatalf("%s: %s: %v\n%s", w.name, cmd, err, res)
		}
		settle(t, out)
	}
	if err := syscall.Kill(-step.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatalf("%s: still running 15 s after Ctrl-C:\n%s", w.name, out.String())
	}
	return normalize(out.String())
}

// settle 等到輸出 quietFor 這麼久都沒有變化（最多 testenv.WaitTimeout）。
//
// settle waits until the output has not changed for quietFor (at most
// testenv.WaitTimeout).
func settle(t *testing.T, out *testenv.Output) {
	t.Helper()
	last, since := out.String(), time.Now()
	testenv.Poll(t, fmt.Sprintf("the output to stay unchanged for %s; output so far:", quietFor), func() bool {
		if now := out.String(); now != last {
			last, since = now, time.Now()
		}
		return time.Since(since) >= quietFor
	}, out)
}

var (
	// step 04 到 06 的 worker sync 與 step 07 的 Reconcile：事件來得比它們快時會合併。
	// Steps 04 to 06's worker syncs and step 07's Reconciles: they merge when events come faster than they run.
	syncLine     = regexp.MustCompile(`^(worker\d+ +sync |podtally Reconcile )`)
	shutdownLine = regexp.MustCompile(`^-- (shutting down|workers stopped)`)
	// 合併時，step 04 的處理函式會註明 key 已經在佇列裡等、或正在同步；這一行是否出現，跟合併一樣取決於時機。
	// When changes merge, step 04's handler notes that the key is already waiting, or being synced; like the merge, that depends on timing.
	queuedLine = regexp.MustCompile(`^-- \S+ is (already waiting in the workqueue|being synced): `)
	// step 04 的 Reflector 把 delta 放進 RealFIFO（queue 行），processLoop 在另一個 goroutine 取出（fifo 行）：
	// 排程器的綁定在 processLoop 取出 Add 之前就到了的話，兩個 queue 行先印，兩個 fifo 行一起跟在後面。
	// Step 04's Reflector pushes deltas into the RealFIFO (queue lines) and processLoop pops them in another goroutine
	// (fifo lines): when the scheduler's binding arrives before processLoop pops the Add, both queue lines come first and
	// both fifo lines follow together.
	pushLine = regexp.MustCompile(`^queue +`)
)

// normalize 做的正是 golden file 做的事（internal/golden 的同幾個函式）：resourceVersion 換成 N、
// 拿掉 bookmark 的行、連不上時每秒重複的那一行只留一行。API server 正在停下時，步驟立刻重開的 watch
// 有時還會被它接受、再關一次：連續兩行 "watch closed" 也只留一行（step 01 的 README 有說）。
//
// normalize does what the golden files do, with internal/golden's own
// functions: resource versions become N, bookmark lines go, and the
// once-a-second "unreachable" line is kept once. An API server that is
// stopping sometimes still accepts the watch the step reopens at once, and
// closes it again: two "watch closed" lines in a row are kept once too (step
// 01's README says so).
func normalize(s string) []string {
	s = golden.CollapseRepeats(golden.DropBookmarks(golden.StripVersions(s)), "-- API server unreachable", "-- watch closed at ")
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// compareWalk 比對輸出與 README。worker 的 sync 行（與 step 07 的 Reconcile 行）另外比：事件來得比 worker 快時，
// 幾個變化會合併成一次同步（這正是 step 04 要教的），所以實際的 sync 行必須是 README 那些的
// 子序列，而且最後一行相同。step 04 的 queue 行也另外比：它們從不合併，順序也跟 README 一樣，
// 只是可能跑在 fifo 行前面。其他每一行都必須一模一樣。prefix 的練習只比 README 列出的部分。
//
// compareWalk compares the output with the README. Worker sync lines (and
// step 07's Reconcile lines) are compared apart: when events come faster than a worker, changes merge into
// one sync (which is what step 04 teaches), so the actual sync lines must be
// a subsequence of the README's, ending with the same line. Step 04's queue
// lines are compared apart too: they never merge and keep the README's order,
// but may run ahead of the fifo lines. Every other line must be identical. A
// prefix exercise compares only as much as the README shows.
func compareWalk(w *walk, got []string) string {
	split := func(lines []string) (rest, syncs, pushes []string) {
		for _, l := range lines {
			if pushLine.MatchString(l) {
				pushes = append(pushes, l)
			} else if syncLine.MatchString(l) {
				// 同一個狀態連續同步兩次（例如刪除中的兩次更新沒有合併）跟同步一次沒有分別。
				// The same state synced twice in a row (two updates while deleting that did not merge, say) is no different from once.
				if len(syncs) == 0 || syncs[len(syncs)-1] != l {
					syncs = append(syncs, l)
				}
			} else if !shutdownLine.MatchString(l) && !queuedLine.MatchString(l) {
				rest = append(rest, l)
			}
		}
		return rest, syncs, pushes
	}
	wantRest, wantSyncs, wantPushes := split(w.want)
	// 只取 README 那一段所涵蓋的輸出：直到 README 的非 sync 行用完之後的下一個非 sync 行為止。
	// Take only the output the README's block covers: up to the non-sync line after the README's last one.
	var covered []string
	n := 0
	for _, l := range got {
		if !syncLine.MatchString(l) && !shutdownLine.MatchString(l) && !queuedLine.MatchString(l) && !pushLine.MatchString(l) {
			if n == len(wantRest) && w.prefix {
				break
			}
			n++
		}
		covered = append(covered, l)
	}
	gotRest, gotSyncs, gotPushes := split(covered)
	gotRest = crossWatchDeletes(gotRest, wantRest)
	if !slices.Equal(gotRest, wantRest) {
		for i := range max(len(wantRest), len(gotRest)) {
			switch {
			case i >= len(gotRest):
				return fmt.Sprintf("the output ends before the README's line %q", wantRest[i])
			case i >= len(wantRest):
				return fmt.Sprintf("an extra line after the README's output: %q", gotRest[i])
			case gotRest[i] != wantRest[i]:
				return fmt.Sprintf("a line differs: README %q, got %q", wantRest[i], gotRest[i])
			}
		}
	}
	// prefix 的練習裡，README 之後的變化的 queue 行可能已經先印出來了。
	// In a prefix exercise, queue lines of the changes after the README's block may already be there.
	if w.prefix && len(gotPushes) > len(wantPushes) {
		gotPushes = gotPushes[:len(wantPushes)]
	}
	if !slices.Equal(gotPushes, wantPushes) {
		return fmt.Sprintf("the queue pushes are not the README's: %q", gotPushes)
	}
	if !isSubsequence(gotSyncs, wantSyncs) {
		return fmt.Sprintf("the worker syncs are not the README's, merged or not: %q", gotSyncs)
	}
	if len(wantSyncs) > 0 && (len(gotSyncs) == 0 || gotSyncs[len(gotSyncs)-1] != wantSyncs[len(wantSyncs)-1]) {
		return "the last worker sync is not the README's"
	}
	return ""
}

// deleteLine 是一個處理函式印出的刪除：informer 的名字、OnDelete、key。 / deleteLine is a deletion a handler printed: the informer's name, OnDelete, the key.
var deleteLine = regexp.MustCompile(`^(\S+) +OnDelete +\S`)

// crossWatchDeletes 把兩行相鄰、來自不同 informer 的 OnDelete 換回 README 的順序：它們經過兩個 watch 到達，
// 兩者之間沒有先後的保證（步驟 07 的 README 說明了 tally 與它的報告的刪除）。其他的順序都不動。
//
// crossWatchDeletes puts two neighbouring OnDelete lines from different
// informers back in the README's order: they arrive through two watches,
// with no order promised between them (step 07's README explains it for the
// tally and its report's deletes). Any other order is left as it is.
func crossWatchDeletes(got, want []string) []string {
	got = slices.Clone(got)
	for i := 0; i+1 < len(got) && i+1 < len(want); i++ {
		a, b := deleteLine.FindStringSubmatch(want[i]), deleteLine.FindStringSubmatch(want[i+1])
		if a != nil && b != nil && a[1] != b[1] && got[i] == want[i+1] && got[i+1] == want[i] {
			got[i], got[i+1] = got[i+1], got[i]
		}
	}
	return got
}

// findWalk 回傳某一步 README 裡名為 name 的練習；沒有就讓測試失敗。
//
// findWalk returns the exercise called name in one step's README; none
// fails the test.
func findWalk(t *testing.T, step, name string) *walk {
	t.Helper()
	for _, w := range parseWalks(t, "../"+step+"/README.md") {
		if w.name == step+"/"+name {
			return w
		}
	}
	t.Fatalf("%s/README.md has no walk %s/%s", step, step, name)
	return nil
}

func isSubsequence(sub, of []string) bool {
	i := 0
	for _, s := range of {
		if i < len(sub) && sub[i] == s {
			i++
		}
	}
	return i == len(sub)
}

// 情境（不需要叢集）：compareWalk 接受時機造成、README 有說明的差異，其他的都不接受。step04-pushes-ahead.txt
// 是一次真正的執行：排程器的綁定在 processLoop 取出 Add 之前就到了，兩個 sync 合併成一個。步驟 07 結尾的兩個
// 刪除可以任一個先到。
//
// The story (no cluster needed): compareWalk accepts the differences timing
// makes and the README explains, and nothing else. step04-pushes-ahead.txt is
// a real run: the scheduler's binding arrived before processLoop popped the
// Add, and two syncs merged into one. Step 07's two deletes at the end may
// come in either order.
func TestCompareWalk(t *testing.T) {
	w := findWalk(t, "step04-controller", "demo")
	data, err := os.ReadFile("testdata/step04-pushes-ahead.txt")
	if err != nil {
		t.Fatal(err)
	}
	ahead := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	index := func(lines []string, prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i
			}
		}
		t.Fatalf("no line starts with %q", prefix)
		return -1
	}
	swap := func(lines []string, i, j int) []string {
		c := slices.Clone(lines)
		c[i], c[j] = c[j], c[i]
		return c
	}
	// 步驟 07 的結尾：tally 與它的報告的刪除經過兩個 watch，可以任一個先到；報告先到時，它排進的 Reconcile
	// 還在快取裡看到刪除中的 tally，再印一次那一行（見步驟 07 的 README）。
	// Step 07's end: the tally's and its report's deletes come through two watches, either first; when the
	// report's comes first, the Reconcile it queued still finds the tally in the cache, being deleted, and prints
	// that line again (see step 07's README).
	w7 := findWalk(t, "step07-controller-runtime", "demo")
	gone, report := index(w7.want, "tallies  OnDelete "), len(w7.want)-2
	if !strings.HasPrefix(w7.want[report], "reports  OnDelete ") {
		t.Fatalf("step 07's README block no longer ends with the report's delete and a Reconcile: %q", w7.want[report])
	}
	reportFirst := slices.Concat(w7.want[:gone], []string{w7.want[report], w7.want[gone-1], w7.want[gone], w7.want[gone+1]})
	add, bind := index(w.want, "queue    Add "), index(w.want, "queue    Update ")
	popAdd := index(ahead, "fifo     Added ")
	for _, c := range []struct {
		name string
		w    *walk
		got  []string
		ok   bool
	}{
		{"step 07's README block", w7, w7.want, true},
		{"step 07 with the report's delete first", w7, reportFirst, true},
		{"step 07 with a delete missing", w7, slices.Delete(slices.Clone(w7.want), report, report+1), false},
		{"step 07 with the report's delete before the tally's deletionTimestamp", w7, slices.Concat(w7.want[:gone-2], []string{w7.want[report]}, w7.want[gone-2:report], w7.want[report+1:]), false},
		{"the README's own block", w, w.want, true},
		{"a real run whose binding was pushed before the Add was popped", w, ahead, true},
		{"the same run with its pops in the wrong order", w, swap(ahead, popAdd, popAdd+1), false},
		{"pushes in the wrong order", w, swap(w.want, add, bind), false},
		{"a push missing", w, slices.Delete(slices.Clone(w.want), bind, bind+1), false},
		{"a pop missing", w, slices.Delete(slices.Clone(ahead), popAdd, popAdd+1), false},
	} {
		if msg := compareWalk(c.w, c.got); (msg == "") != c.ok {
			t.Errorf("%s: compareWalk says %q; want accepted = %v", c.name, msg, c.ok)
		}
	}
}
