// Package pagetest 讓測試在真的瀏覽器裡檢查即時頁面：頁面收到的行、它畫出的狀態、DOM。它跟 testenv 分開，
// 不開頁面的測試就不必連結瀏覽器的驅動程式（chromedp）。
//
// Package pagetest lets tests check the live page in a real browser: the
// lines it received, the state it draws, its DOM. It is apart from testenv so
// that tests which never open a page do not link the browser driver
// (chromedp).
package pagetest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/browser"
	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// Page 開啟頁面，等它趕上 lines 裡的每一行（步驟到目前為止印出的事件）。
//
// Page opens the page and waits until it has caught up with every line in
// lines (the events the step printed so far).
func Page(t testing.TB, url, lines string) *browser.Browser {
	t.Helper()
	b := browser.Start(t, 1400, 1000)
	b.Open(t, url)
	CaughtUp(t, b, lines)
	return b
}

// CaughtUp 等頁面收到 lines 裡的每一行，而且游標在最後。
//
// CaughtUp waits until the page has every line in lines, its cursor at the
// end.
func CaughtUp(t testing.TB, b *browser.Browser, lines string) {
	t.Helper()
	n := strings.Count(lines, "\n")
	b.Wait(t, "the page to catch up with "+strconv.Itoa(n)+" lines",
		// 畫面要畫到最後一筆：data-total 是上一次重畫時的事件數，而且沒有等著的重畫。
		// The drawing must include the last event: data-total is the event count at the last redraw, and no redraw is pending.
		"document.body.dataset.synced === 'true' && LV.app.frame === 0 && "+
			"document.body.dataset.total === String(LV.app.timeline.events.length) && document.body.dataset.cursor === document.body.dataset.total && "+
			"LV.app.timeline.events.filter(e => !e.quiet).length >= "+strconv.Itoa(n),
		"document.body.dataset.total + ' events; ' + (document.body.dataset.error || '')")
}

// PageLines 是頁面收到的每一筆印出來的事件，照 Go 的格式寫成文字：跟步驟印出的必須一模一樣。
//
// PageLines is every printed event the page received, written in Go's
// format: it must be exactly what the step printed.
func PageLines(t testing.TB, b *browser.Browser) string {
	t.Helper()
	return browser.Eval[string](t, b, `LV.app.timeline.events.filter(e => !e.quiet).map(e => LV.text(e) + "\n").join("")`)
}

// PageSummary 是頁面目前畫出的狀態（LV.summary）。
//
// PageSummary is the state the page draws now (LV.summary).
func PageSummary(t testing.TB, b *browser.Browser) string {
	t.Helper()
	return browser.Eval[string](t, b, `LV.summary(LV.app.timeline.latest)`)
}

// CheckPage 確認頁面收到的就是步驟印出的那幾行（printed）、最後的狀態跟 testdata/<name>.final.golden 一樣，
// 而且主控台沒有錯誤。-update 時改寫那個 golden file，重播測試拿它比對。
//
// CheckPage checks that the page received exactly the lines the step
// printed (printed), that its final state is testdata/<name>.final.golden, and
// that the console has no error. With -update it rewrites that golden file,
// which the replay test compares with.
func CheckPage(t *testing.T, b *browser.Browser, printed func() string, name string) {
	t.Helper()
	SamePage(t, b, printed)
	summary := PageSummary(t, b)
	golden.Check(t, name+".final", summary)
	// 畫出來的快取表格（DOM）必須就是狀態裡的快取：畫錯了，光比對狀態看不出來。
	// The cache table as drawn (the DOM) must be the state's cache: comparing the state alone would miss a wrong drawing.
	var want []string
	for _, line := range strings.Split(summary, "\n") {
		if rest, ok := strings.CutPrefix(line, "cache "); ok {
			want = append(want, rest)
		}
	}
	drawn := browser.Eval[[]string](t, b, `[...document.querySelectorAll("#cache-rows tr[data-key]")].map(tr => {
		const c = [...tr.cells].map(td => td.textContent);
		return c[0] + " phase=" + c[1] + " node=" + c[2] + " labels=" + c[3] + (c[4] ? " " + c[4] : "");
	})`)
	if strings.Join(drawn, "\n") != strings.Join(want, "\n") {
		t.Errorf("the cache table drawn on the page differs from the page's state\n--- drawn\n%s\n--- state\n%s", strings.Join(drawn, "\n"), strings.Join(want, "\n"))
	}
}

// SamePage 確認頁面收到的就是步驟印出的那幾行，而且主控台沒有錯誤。步驟可能還在印（例如 bookmark），
// 所以它等到兩邊一樣、頁面也畫到最後一行為止。
//
// SamePage checks that the page received exactly the lines the step
// printed, and that the console has no error. The step may still be
// printing (a bookmark, say), so it waits until both sides agree and the
// page has drawn the last line.
func SamePage(t testing.TB, b *browser.Browser, printed func() string) {
	t.Helper()
	var got, want string
	same := func() bool {
		want = printed()
		got = PageLines(t, b)
		return got == want
	}
	testenv.Poll(t, "the page's lines to be the step's output", same, testenv.Describe(func() string { return "--- page\n" + got + "--- step\n" + want }))
	CaughtUp(t, b, want)
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// DOM 回傳第一個符合 selector 的元素的 data-attr（沒有這個元素時讓測試失敗）。
//
// DOM returns the data-attr of the first element matching selector (failing
// the test when there is none).
func DOM(t testing.TB, b *browser.Browser, selector, attr string) string {
	t.Helper()
	js := "(() => { const n = document.querySelector(" + strconv.Quote(selector) + "); return n ? String(n.getAttribute(" + strconv.Quote(attr) + ")) : '\\u0000none'; })()"
	v := browser.Eval[string](t, b, js)
	if v == "\x00none" {
		t.Fatalf("the page has no %s", selector)
	}
	return v
}
