//go:build screenshots

package liveview_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/browser"
)

// shots 是文件裡的截圖：哪一份錄製檔、停在哪一刻（at 是一段 JavaScript，收到事件陣列，回傳游標的位置；
// 空字串表示最後），選取哪個 key（畫出它走過的路）；每一張都有英文與中文兩個版本。
//
// shots are the docs' screenshots: which recording, stopped at which moment
// (at is JavaScript given the events array and returning the cursor; empty
// for the end), which key is selected (its path drawn); each in English and
// in zh-TW.
var shots = func() []struct{ recording, image, lang, at, key string } {
	moments := []struct{ recording, image, at, key string }{
		{"step01-listwatcher/testdata/demo.recording.jsonl", "step01", "", ""},
		{"step02-listwatch-from-client/testdata/demo.recording.jsonl", "step02", "", ""},
		{"step03-indexer-informer/testdata/demo.recording.jsonl", "step03", `ev => ev.findIndex(e => e.what === "OnUpdate" && /tier=web/.test(e.detail)) + 2`, "default/demo"},
		{"step04-controller/testdata/demo.recording.jsonl", "step04", `ev => ev.findIndex(e => /retry 3\/5/.test(e.detail || "")) + 1`, "default/demo"},
		{"step05-shared-informer/testdata/slow.recording.jsonl", "step05", `ev => ev.findIndex(e => e.source === "slow" && e.key.endsWith("/demo")) + 1`, ""},
		{"step06-custom-resource/testdata/demo.recording.jsonl", "step06", `ev => ev.findIndex(e => e.source === "tallies" && /count 1 -> 2/.test(e.detail || "")) + 1`, "default/app-demo"},
		{"step07-controller-runtime/testdata/demo.recording.jsonl", "step07", `ev => ev.findIndex(e => e.source === "podtally" && /count 1 -> 2/.test(e.detail || "")) + 1`, "default/app-demo"},
	}
	var out []struct{ recording, image, lang, at, key string }
	for _, lang := range []string{"en", "zh"} {
		for _, m := range moments {
			image := m.image
			if lang == "zh" {
				image += ".zh-TW"
			}
			out = append(out, struct{ recording, image, lang, at, key string }{m.recording, image, lang, m.at, m.key})
		}
	}
	return out
}()

// TestScreenshots 重播每一份錄製檔，停在指定的那一刻，把整頁存成 docs/images/live-<image>.png。
// scripts/ci/screenshots.sh 執行它（go test -tags screenshots）；平常的 go test ./... 不編譯這個檔。
//
// TestScreenshots replays each recording, stops at the chosen moment and
// saves the whole page as docs/images/live-<image>.png.
// scripts/ci/screenshots.sh runs it (go test -tags screenshots); a plain
// go test ./... does not compile this file.
func TestScreenshots(t *testing.T) {
	b := browser.Start(t, 1280, 900)
	for _, s := range shots {
		_, rec := recording(t, filepath.Join(root, s.recording))
		_, srv := serve(t, rec.Header.Pipeline, rec.Events, true, nil)
		b.Open(t, srv.URL+"?at=end")
		b.Wait(t, "the replay to load", `document.body.dataset.synced === "true" && LV.app.ended`, `document.body.dataset.total`)
		at := "LV.app.timeline.events.length"
		if s.at != "" {
			at = "(" + s.at + ")(LV.app.timeline.events)"
		}
		n := browser.Eval[int](t, b, `(() => { LV.app.controls.setLang(`+strconv.Quote(s.lang)+`); const n = `+at+`; LV.app.seek(n); LV.app.select(`+strconv.Quote(s.key)+`); return n; })()`)
		if n <= 0 {
			t.Fatalf("%s: the moment %s is not in %s", s.image, s.at, s.recording)
		}
		b.Wait(t, "the page to draw event "+strconv.Itoa(n), `LV.app.frame === 0 && document.body.dataset.cursor === "`+strconv.Itoa(n)+`"`, `document.body.dataset.cursor`)
		b.Screenshot(t, filepath.Join(root, "docs", "images", "live-"+s.image+".png"))
		if errs := b.Errors(); len(errs) > 0 {
			t.Errorf("%s: console errors: %v", s.image, errs)
		}
	}
}
