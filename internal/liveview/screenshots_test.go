//go:build screenshots

package liveview_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/browser"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

// TestScreenshots 重播每一份錄製檔，停在它的解說標成 poster 的那一站（選取那一站的 key），把整頁存成
// docs/images/live-<步驟>[-<錄製檔>].png 與它的 .zh-TW.png。要截哪一刻寫在步驟自己的 testdata/*.tour.json 裡，
// 不在這裡。scripts/ci/screenshots.sh 執行它（go test -tags screenshots）；平常的 go test ./... 不編譯這個檔。
//
// TestScreenshots replays each recording, stops at the stop its tour marks
// as the poster (selecting that stop's key) and saves the whole page as
// docs/images/live-<step>[-<recording>].png and its .zh-TW.png. Which moment
// is written in the step's own testdata/*.tour.json, not here.
// scripts/ci/screenshots.sh runs it (go test -tags screenshots); a plain
// go test ./... does not compile this file.
func TestScreenshots(t *testing.T) {
	b := browser.Start(t, 1280, 800)
	for _, path := range recordings(t) {
		_, rec := recording(t, path)
		data, err := os.ReadFile(liveview.TourPath(path))
		if err != nil {
			t.Fatal(err)
		}
		tour, err := liveview.ReadTour(data)
		if err != nil {
			t.Fatal(err)
		}
		var poster *liveview.Stop
		for i := range tour.Stops {
			if tour.Stops[i].Poster {
				poster = &tour.Stops[i]
			}
		}
		if poster == nil {
			t.Fatalf("%s has no poster stop", liveview.TourPath(path))
		}
		image := "live-" + strings.SplitN(filepath.Base(filepath.Dir(filepath.Dir(path))), "-", 2)[0]
		if name := strings.TrimSuffix(filepath.Base(path), ".recording.jsonl"); name != "demo" {
			image += "-" + name
		}
		_, srv := serve(t, rec.Header.Pipeline, rec.Events, true, nil, liveview.WithTour(data))
		for _, lang := range []string{"en", "zh-TW"} {
			b.Open(t, srv.URL+"?at="+strconv.FormatUint(poster.Seq, 10)+"&key="+poster.Select+"&lang="+lang)
			b.Wait(t, "the replay to load at its poster", `document.body.dataset.synced === "true" && LV.app.ended && LV.app.frame === 0 && document.querySelector("#caption").dataset.source === "tour"`, `document.body.dataset.cursor`)
			out := image + ".png"
			if lang != "en" {
				out = image + ".zh-TW.png"
			}
			b.Screenshot(t, filepath.Join(root, "docs", "images", out))
		}
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
