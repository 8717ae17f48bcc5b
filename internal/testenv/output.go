package testenv

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// WaitTimeout 是每一次等待的上限：本機叢集上的事件通常在幾十毫秒內送達。
//
// WaitTimeout bounds every wait: on the local cluster events usually arrive
// within tens of milliseconds.
const WaitTimeout = 30 * time.Second

// Poll 每 10 毫秒檢查一次 cond，直到它成立；超過 WaitTimeout 就以「等了多久、等什麼」讓測試失敗，
// 後面給的值（例如一個 *Output）也一起印出。測試裡的每個等待都經過這裡或 Output.Wait，沒有 sleep。
//
// Poll checks cond every 10 ms until it holds; past WaitTimeout it fails the
// test saying what it waited for, printing the values after it too (an
// *Output, say). Every wait in the tests goes through here or Output.Wait;
// none sleeps.
func Poll(t testing.TB, what string, cond func() bool, show ...fmt.Stringer) {
	t.Helper()
	PollWithin(t, WaitTimeout, 10*time.Millisecond, what, cond, show...)
}

// PollWithin 是有自己的時限與間隔的 Poll，給等整個叢集的事（例如附加元件啟動）用：那比 WaitTimeout 久，
// 也不必每 10 毫秒問一次 API server。
//
// PollWithin is Poll with a limit and an interval of its own, for waits on
// a whole cluster (its addons starting, say): they take longer than
// WaitTimeout, and need not ask the API server every 10 ms.
func PollWithin(t testing.TB, within, every time.Duration, what string, cond func() bool, show ...fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, s := range show {
				b.WriteString("\n" + s.String())
			}
			t.Fatalf("waited %s for %s%s", within, what, b.String())
		}
		time.Sleep(every)
	}
}

// Describe 讓一個函式在 Poll 逾時時才算出要印的內容。
//
// Describe makes a function compute what Poll prints only when it times out.
type Describe func() string

func (d Describe) String() string { return d() }

// Output 是一個可以同時寫入與讀取的緩衝區，讓測試等待某一行出現。
//
// Output is a buffer that can be written and read at once, so a test can wait
// for a line to appear.
type Output struct {
	mu  sync.Mutex
	buf strings.Builder
	// held 記著每個 key 被 worker 拿走（Get）還沒還回去（Done）的次數；events 是收到的每一筆事件。
	// 只有接上事件串流的 Output 才有這兩者。
	// held counts, per key, the Gets a worker has not yet answered with Done; events is every event received.
	// Only an Output fed the event stream has them.
	held   map[string]int
	most   map[string]int
	events []show.Event
}

// Emit 讓 Output 也是一個 show.Sink：它記下每一筆事件（給 WaitEvents），以及每個 key 的 Get 與 Done（給 WaitIdle）。
//
// Emit makes an Output a show.Sink too: it keeps every event (for
// WaitEvents), and each key's Get and Done (for WaitIdle).
func (o *Output) Emit(e show.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, e)
	if e.Op != show.OpGet && e.Op != show.OpDone {
		return
	}
	if o.held == nil {
		o.held, o.most = map[string]int{}, map[string]int{}
	}
	if e.Op == show.OpGet {
		o.held[e.Key]++
		o.most[e.Key] = max(o.most[e.Key], o.held[e.Key])
	} else {
		o.held[e.Key]--
	}
}

// WaitEvents 等到至少 n 筆事件的 Source、What 與 Key 是給的這幾個，包括不印出來的（Quiet）事件：
// 例如控制器自己寫的物件，它的 informer 已經收到了。
//
// WaitEvents waits until at least n events have the given Source, What and
// Key, the ones not printed (Quiet) included: that the informer has
// received an object the controller wrote itself, say.
func (o *Output) WaitEvents(t testing.TB, n int, source, what, key string) {
	t.Helper()
	Poll(t, fmt.Sprintf("%d event(s) %s %s %s; output so far:", n, source, what, key), func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		got := 0
		for _, e := range o.events {
			if e.Source == source && e.What == what && e.Key == key {
				got++
			}
		}
		return got >= n
	}, o)
}

// WaitIdle 等到 key 的每一次 Get 都有了 Done：印出 sync 那一行時，worker 還沒把 key 還給佇列，
// 這時送來的變化讓處理函式說 key 正在同步（"being synced"），Done 之後才再同步一次；
// 要讓輸出跟 worker 已經閒下來時一樣，就等到這裡。
//
// WaitIdle waits until every Get of key has had its Done: when the sync line
// is printed the worker has not yet handed the key back, and a change that
// arrives then makes the handler say the key is being synced, with one more
// sync after Done; for the output of a worker that is already idle, wait for
// this first.
func (o *Output) WaitIdle(t testing.TB, key string) {
	t.Helper()
	Poll(t, key+" handed back to the queue (Done); output so far:", func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.held[key] == 0
	}, o)
}

// MostHeld 是 key 同時被幾個 worker 拿著（Get 之後、Done 之前）的最大值：佇列從不把一個 key 同時交給兩個
// worker，所以它最多是 1。步驟要在呼叫 queue.Done 之前送出 Done 事件，這個數才算得準。
//
// MostHeld is the most workers that held key at once (after Get, before
// Done): the queue never hands one key to two workers at a time, so it is at
// most 1. The step must send its Done event before it calls queue.Done for
// the count to be exact.
func (o *Output) MostHeld(key string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.most[key]
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Count 回傳同時包含所有片段的行數。
//
// Count returns how many lines contain every one of the parts.
func (o *Output) Count(parts ...string) int {
	n := 0
	for _, line := range strings.Split(o.String(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			n++
		}
	}
	return n
}

// Wait 等到至少 n 行同時包含所有片段（例如一個 key 與一段說明，中間隔著對齊用的空白）；
// 逾時則讓測試失敗並印出目前的輸出。
//
// Wait waits until at least n lines contain every one of the parts (a key
// and a detail with alignment padding between them, say); on timeout it
// fails the test and prints the output so far.
func (o *Output) Wait(t testing.TB, n int, parts ...string) {
	t.Helper()
	Poll(t, fmt.Sprintf("%d line(s) containing %q; output so far:", n, parts), func() bool { return o.Count(parts...) >= n }, o)
}

// WantOrder 確認每個片段都出現在 got 裡，而且順序與給定的相同。
//
// WantOrder checks that every fragment appears in got, in the given order.
func WantOrder(t testing.TB, got string, fragments ...string) {
	t.Helper()
	rest := got
	for _, f := range fragments {
		i := strings.Index(rest, f)
		if i < 0 {
			t.Fatalf("missing %q (or out of order) in output:\n%s", f, got)
		}
		rest = rest[i+len(f):]
	}
}

// Start 在背景執行一個步驟的主迴圈，把輸出收進 Output。stop 取消它、等它結束，並確認它沒有回傳錯誤；
// 測試結束時若還沒呼叫，會自動呼叫。
//
// Start runs a step's main loop in the background, collecting its output.
// stop cancels it, waits for it to return, and checks that it returned no
// error; the end of the test calls it if the test did not.
func Start(t testing.TB, run func(ctx context.Context, out io.Writer) error) (out *Output, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	out = &Output{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, out) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("the step returned an error: %v\noutput:\n%s", err, out.String())
				}
			case <-time.After(WaitTimeout):
				t.Errorf("the step did not return within %s of being cancelled", WaitTimeout)
			}
		})
	}
	t.Cleanup(stop)
	return out, stop
}
