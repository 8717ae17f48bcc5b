package golden

import (
	"regexp"
	"slices"
	"strings"
)

// 以下是比對之前的正規化：把每次執行都不同、或取決於時機的部分拿掉，剩下的才逐行比對。
// golden file 與 README 的導覽測試都用這幾個，不另寫一份。
// The normalisations below run before a comparison: they take out what
// differs on every run or depends on timing, so the rest compares line by
// line. Golden files and the README walk both use these, never a copy.

var (
	resourceVersionRE = regexp.MustCompile(`(resourceVersion|timeoutSeconds)=\d+`)
	tooOldRE          = regexp.MustCompile(`too old resource version: \d+ \(\d+\)`)
	bookmarkRE        = regexp.MustCompile(`(?m)^\S+ +Bookmark .*\n`)
)

// StripVersions 把 resourceVersion 與 timeoutSeconds 的數字換成 N，410 訊息裡的兩個版本也一樣：
// 每次執行都不同（Reflector 的 watch 逾時是隨機的）。
//
// StripVersions replaces resourceVersion and timeoutSeconds numbers with N,
// and the two versions in a 410's message too: they differ on every run (a
// Reflector's watch timeout is random).
func StripVersions(s string) string {
	s = tooOldRE.ReplaceAllString(s, "too old resource version: N (N)")
	return resourceVersionRE.ReplaceAllString(s, "${1}=N")
}

// DropBookmarks 拿掉步驟 04 的 Bookmark 行（queue 與 fifo）：伺服器什麼時候送 bookmark 看時機。
//
// DropBookmarks drops step 04's Bookmark lines (queue and fifo): when the
// server sends a bookmark depends on timing.
func DropBookmarks(s string) string {
	return bookmarkRE.ReplaceAllString(s, "")
}

// CollapseRepeats 把連續重複的行只留一行；給了 prefixes 時，只處理以其中之一開頭的行。一段時間裡重複的那一行
// （每秒一次的重試），或同一個狀態連續同步兩次，在比對時只算一次。
//
// CollapseRepeats keeps one of each run of identical consecutive lines; with
// prefixes, only of lines that start with one of them. A line repeated over a
// span of time (a retry each second) or the same state synced twice in a row
// counts once in a comparison.
func CollapseRepeats(s string, prefixes ...string) string {
	var b strings.Builder
	prev := ""
	for _, line := range strings.SplitAfter(s, "\n") {
		if line == prev && (len(prefixes) == 0 || slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(line, p) })) {
			continue
		}
		b.WriteString(line)
		prev = line
	}
	return b.String()
}

// DropTrace 拿掉 --trace 印出的行（trace: 開頭）：它們直接寫進輸出，不是事件，也不在頁面上。
//
// DropTrace removes the lines --trace prints (starting with trace: ): they go
// straight to the output, are no events, and are not on the page.
func DropTrace(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(line, "trace: ") {
			b.WriteString(line)
		}
	}
	return b.String()
}
