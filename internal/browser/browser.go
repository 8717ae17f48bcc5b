// Package browser 用 chromedp 驅動一個真正的瀏覽器（Debian 的 chromium，無頭模式），給即時頁面的測試與
// 文件截圖用。CI（CI=true）裡或設定了 CHROMIUM 時，找不到瀏覽器會讓測試失敗並說一行原因；其他地方則略過並說明原因。
// scripts/test.sh 以 root 執行時會先安裝 chromium，並設定 CHROMIUM，所以它的執行從不略過頁面的測試。
//
// Package browser drives a real browser (Debian's chromium, headless) with
// chromedp, for the live page's tests and the docs' screenshots. In CI
// (CI=true) or with CHROMIUM set, a missing browser fails the test with one
// line saying why; elsewhere the test is skipped with the reason.
// scripts/test.sh installs chromium first when it runs as root, and sets
// CHROMIUM, so its runs never skip a page test.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Find 回傳瀏覽器執行檔的路徑：CHROMIUM 指定的，否則 PATH 裡的 chromium 或 chromium-browser。
//
// Find returns the browser's path: CHROMIUM if set, else chromium or
// chromium-browser on the PATH.
func Find() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium on the PATH (scripts/test.sh installs Debian's chromium when run as root; or set CHROMIUM)")
}

// Browser 是一個無頭的 chromium 分頁，記下頁面寫到主控台的每一則訊息。
//
// Browser is one headless chromium tab that keeps every message the page
// writes to the console.
type Browser struct {
	ctx     context.Context
	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// Start 啟動瀏覽器，視窗大小 width×height；測試結束時關掉它。找不到瀏覽器時，CI 裡讓測試失敗，其他地方略過。
//
// Start starts the browser with a width×height window; it is closed when
// the test ends. Without a browser it fails the test in CI and skips it
// elsewhere.
func Start(t testing.TB, width, height int) *Browser {
	t.Helper()
	path, err := Find()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	if _, err := os.Stat(path); err != nil {
		// CHROMIUM 說了要用哪一個瀏覽器（scripts/test.sh 會設定），它卻不在：失敗，不略過。
		// CHROMIUM names the browser to use (scripts/test.sh sets it) and it is not there: fail, not skip.
		t.Fatalf("CHROMIUM=%s: %v", path, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	b := &Browser{ctx: ctx}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	return b
}

// Open 開啟一個網址，等到頁面載入。
//
// Open opens a URL and waits until the page has loaded.
func (b *Browser) Open(t testing.TB, url string) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
}

// Settle 等頁面再畫兩格畫面：版面一變，ResizeObserver 的回呼（方框名字的縮放、說明收起來）要等到下一格畫面畫出之前才會執行，
// 所以量版面的測試在那之前量到的，是使用者永遠看不到的中間狀態。
//
// Settle waits until the page has drawn two more frames: after a layout
// change, ResizeObserver callbacks (shrinking a box's name to fit, folding
// captions away) do not run until just before the next frame, so a test
// that measures the layout before then sees an in-between state no user
// ever sees.
func (b *Browser) Settle(t testing.TB) {
	t.Helper()
	Eval[bool](t, b, `(window.twoFrames = false, requestAnimationFrame(() => requestAnimationFrame(() => { window.twoFrames = true; })), true)`)
	b.Wait(t, "two frames", `window.twoFrames === true`, `String(window.twoFrames)`)
}

// Eval 在頁面裡執行一段 JavaScript，回傳它的值。
//
// Eval runs a JavaScript expression in the page and returns its value.
func Eval[T any](t testing.TB, b *Browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// Wait 每 20 毫秒執行一次 js，直到它回傳 true；30 秒內沒有就讓測試失敗，印出 show 算出的內容。
//
// Wait runs js every 20 ms until it returns true; if that does not happen
// within 30 seconds it fails the test, printing what show computes.
func (b *Browser) Wait(t testing.TB, what, js, show string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			got := "(nothing to show)"
			if show != "" {
				got, _ = chromedp.Run(b.ctx, chromedp.Evaluate[string](show))
			}
			t.Fatalf("waited 30s for the page: %s (%v)\n%s", what, err, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Click 按下第一個符合 CSS 選擇器的元素。
//
// Click clicks the first element matching a CSS selector.
func (b *Browser) Click(t testing.TB, selector string) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Click(chromedp.CSS(selector))); err != nil {
		t.Fatalf("clicking %s: %v", selector, err)
	}
}

// Key 在頁面上按一個鍵，像鍵盤那樣（kb 的常數，例如 kb.End，或一個字元）。
//
// Key presses one key on the page, as a keyboard does (a kb constant such as
// kb.End, or a character).
func (b *Browser) Key(t testing.TB, key string) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.KeyEvent(key)); err != nil {
		t.Fatalf("pressing %q: %v", key, err)
	}
}

// Type 把 text 打進第一個符合 CSS 選擇器的輸入框（先清空它）。
//
// Type types text into the first input matching a CSS selector (clearing it
// first).
func (b *Browser) Type(t testing.TB, selector, text string) {
	t.Helper()
	clear := "(() => { const n = document.querySelector(" + strconv.Quote(selector) + "); if (n) n.value = ''; return !!n; })()"
	if found, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](clear)); err != nil || !found {
		t.Fatalf("clearing %s: found %v, %v", selector, found, err)
	}
	if err := chromedp.Do(b.ctx, chromedp.SendKeys(chromedp.CSS(selector), text)); err != nil {
		t.Fatalf("typing into %s: %v", selector, err)
	}
}

// Upload 把一個檔案放進第一個符合 CSS 選擇器的檔案輸入框，就像使用者選了它。
//
// Upload puts a file into the first file input matching a CSS selector, as
// if the user had picked it.
func (b *Browser) Upload(t testing.TB, selector, path string) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.SetUploadFiles(chromedp.CSS(selector), []string{path})); err != nil {
		t.Fatalf("choosing %s in %s: %v", path, selector, err)
	}
}

// Screenshot 截下整頁，存成 PNG。
//
// Screenshot captures the whole page as a PNG file.
func (b *Browser) Screenshot(t testing.TB, path string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Errors 回傳頁面寫到主控台的錯誤與沒人接住的例外。
//
// Errors returns the errors and uncaught exceptions the page wrote to the
// console.
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, m := range b.console {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			out = append(out, fmt.Sprint(m))
		}
	}
	return out
}

// Viewport 把頁面的可視範圍設成 width×height（CSS 像素），像換了一個螢幕：投影機的 1024×768、部落格的欄寬。
//
// Viewport sets the page's viewport to width×height (CSS pixels), as if on
// another screen: a projector's 1024×768, a blog's column.
func (b *Browser) Viewport(t testing.TB, width, height int) {
	t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("viewport %dx%d: %v", width, height, err)
	}
}

// ScreenshotViewport 只截下可視範圍（投影機上看得到的那一塊），存成 PNG。
//
// ScreenshotViewport captures only the viewport (what a projector shows) as
// a PNG file.
func (b *Browser) ScreenshotViewport(t testing.TB, path string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
