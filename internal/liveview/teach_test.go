package liveview_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"github.com/informer-walkthrough/informer-walkthrough/internal/browser"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// exported 把一份錄製檔（與它旁邊的解說）匯出成暫存目錄裡的一個 HTML 檔，回傳它的 file:// 網址。
//
// exported exports a recording (with the tour beside it) as one HTML file
// in a temporary directory and returns its file:// URL.
func exported(t *testing.T, path string) string {
	t.Helper()
	raw, rec := recording(t, path)
	tour, err := liveview.TourBeside(path, rec)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "page.html")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := liveview.Export(raw, tour, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return "file://" + out
}

func name(path string) string {
	return filepath.Base(filepath.Dir(filepath.Dir(path))) + "/" + strings.TrimSuffix(filepath.Base(path), ".recording.jsonl")
}

// loaded 等到頁面讀完錄製檔、停下來、畫完最後一格。 / loaded waits until the page has read its recording, stopped, and drawn its last frame.
const loaded = `document.body.dataset.synced === "true" && LV.app.ended && !LV.app.playing && LV.app.frame === 0`

// overflow 列出畫面裡放不進自己方框的東西：水平捲動、超出可視範圍的管線或說明列、比父元素寬的元素、
// 被裁掉而沒有刪節號的文字。
//
// overflow lists what does not fit its box: a horizontal scroll, the
// pipeline or the caption bar past the viewport, an element wider than its
// parent, text clipped without an ellipsis.
const overflow = `(() => {
	const bad = [];
	const vw = innerWidth, vh = innerHeight;
	if (document.documentElement.scrollWidth > vw + 1) bad.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + vw);
	const bottom = (sel) => document.querySelector(sel).getBoundingClientRect().bottom;
	const edges = document.querySelector("#edges");
	const pipelineEnd = Math.max(bottom("#pipeline"), document.querySelector("#pipeline").getBoundingClientRect().top + Number(edges.getAttribute("height") || 0));
	if (pipelineEnd > vh + 1) bad.push("the pipeline ends at " + Math.round(pipelineEnd) + " > " + vh);
	if (bottom("#caption") > vh + 1) bad.push("the caption bar ends at " + bottom("#caption"));
	for (const el of document.querySelectorAll("#top *, #timeline *, #caption, #caption *, #pipeline .stage, #pipeline .stage *")) {
		if (el.closest("svg") || !el.offsetParent) continue;
		const r = el.getBoundingClientRect(), p = el.parentElement.getBoundingClientRect();
		const what = (el.id ? "#" + el.id : el.tagName.toLowerCase() + "." + el.className) + " in " + (el.closest("[data-stage]") ? el.closest("[data-stage]").dataset.stage : "the header");
		if (r.width > 0 && (r.right > p.right + 1.5 || r.left < p.left - 1.5)) bad.push(what + " is wider than its box (" + Math.round(r.left) + "–" + Math.round(r.right) + " in " + Math.round(p.left) + "–" + Math.round(p.right) + ")");
		const cs = getComputedStyle(el);
		if (cs.overflowX === "hidden" && cs.textOverflow !== "ellipsis" && el.scrollWidth > el.clientWidth + 1) bad.push(what + " clips its text: " + JSON.stringify(el.textContent.slice(0, 40)));
	}
	return bad;
})()`

// 情境：投影機上的簡報模式。每一步的每一份錄製檔，在 1024×768 與 1920×1080、英文與中文：不必捲動就看得到整條
// 管線與說明列，沒有水平捲動，沒有字跑出它的方框。停在解說的海報那一刻（那時畫面上最滿）。
//
// The story: presenter mode on a projector. Every recording of every step,
// at 1024×768 and 1920×1080, in English and in Chinese: the whole pipeline
// and the caption bar show with no scrolling, nothing scrolls sideways, and
// no text runs out of its box. It stops at the tour's poster moment (the
// fullest picture).
func TestPresenterFits(t *testing.T) {
	testenv.FullTier(t, "every recording at two projector sizes in both languages, about 13 s; TestReplayRecordings opens every recording in the quick tier")
	b := browser.Start(t, 1024, 768)
	for _, path := range recordings(t) {
		url := exported(t, path)
		_, rec := recording(t, path)
		tour, err := liveview.TourBeside(path, rec)
		if err != nil {
			t.Fatal(err)
		}
		parsed, _ := liveview.ReadTour(tour)
		at := ""
		for _, s := range parsed.Stops {
			if s.Poster {
				at = strconv.FormatUint(s.Seq, 10) + "&key=" + s.Select
			}
		}
		for _, size := range [][2]int{{1024, 768}, {1920, 1080}} {
			for _, lang := range []string{"en", "zh-TW"} {
				t.Run(name(path)+"/"+strconv.Itoa(size[0])+"x"+strconv.Itoa(size[1])+"/"+lang, func(t *testing.T) {
					b.Viewport(t, size[0], size[1])
					b.Open(t, url+"?presenter=1&lang="+lang+"&at="+at)
					b.Wait(t, "the page to load", loaded, `document.body.dataset.cursor`)
					b.Settle(t)
					if bad := browser.Eval[[]string](t, b, overflow); len(bad) > 0 {
						t.Errorf("%d things do not fit:\n%s", len(bad), strings.Join(bad, "\n"))
					}
				})
			}
		}
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// 情境：不開解說（?tour=0），從頭照預設的速度播放每一份匯出的 demo，到最後至少要 20 秒：人跟得上的步調。
// 用的是假的時鐘：畫出最後一筆之前，頁面要求的每一段等待都加總起來、立刻執行，所以測試本身很快；畫出最後一筆之後
// 的那一段等待不算，那時已經到了最後。
//
// The story: with the tour off (?tour=0), every exported demo played from
// the start at the default speed takes at least 20 seconds to reach the end:
// a pace a person can follow. It runs on a virtual clock: every wait the page
// asks for before the last event is drawn is added up and run at once, so the
// test itself is quick; the wait after the last event is drawn does not count,
// as the end is already there.
func TestReplayTakesAtLeast20Seconds(t *testing.T) {
	testenv.FullTier(t, "the pace of every exported demo, about 13 s")
	b := browser.Start(t, 1280, 800)
	for _, path := range recordings(t) {
		t.Run(name(path), func(t *testing.T) {
			b.Open(t, exported(t, path)+"?tour=0&at=end")
			b.Wait(t, "the page to load", loaded, `document.body.dataset.cursor`)
			browser.Eval[bool](t, b, `(() => {
				const real = window.setTimeout;
				window.waited = 0;
				window.setTimeout = (fn, ms) => { if (LV.app.cursor < LV.app.timeline.events.length) window.waited += ms || 0; return real(fn, 0); };
				LV.app.seek(0);
				LV.app.play();
				return true;
			})()`)
			b.Wait(t, "the replay to reach the end", `!LV.app.playing && LV.app.cursor === LV.app.timeline.events.length`, `LV.app.cursor`)
			if ms := browser.Eval[float64](t, b, `window.waited`); ms < 20000 {
				t.Errorf("the replay takes %.1f s at the default speed; want at least 20 s", ms/1000)
			}
		})
	}
}

// 情境：一個連結開啟的就是那一個畫面：第幾筆、選取的 key、中文、簡報模式、速度。使用者往前一步，網址跟著改，
// 複製下來的連結開啟的就是新的那一刻。
//
// The story: a link opens exactly that view: the moment, the selected key,
// Chinese, presenter mode, the speed. When the user steps forward the
// address changes with it, so a copied link opens the new moment.
func TestLinkOpensTheView(t *testing.T) {
	path := filepath.Join(root, "step04-controller", "testdata", "demo.recording.jsonl")
	_, rec := recording(t, path)
	seq := rec.Events[len(rec.Events)/2].Seq
	b := browser.Start(t, 1280, 800)
	b.Open(t, exported(t, path)+"?at="+strconv.FormatUint(seq, 10)+"&key=default/demo&lang=zh-TW&presenter=1&speed=2")
	b.Wait(t, "the page to load", loaded, `document.body.dataset.cursor`)
	got := browser.Eval[string](t, b, `[LV.app.timeline.events[LV.app.cursor - 1].seq, LV.app.renderer.selected, document.documentElement.lang, document.body.classList.contains("presenter"), LV.speed].join(" ")`)
	if want := strconv.FormatUint(seq, 10) + " default/demo zh-TW true 2"; got != want {
		t.Errorf("the link opened %q; want %q (seq, key, language, presenter mode, speed)", got, want)
	}
	b.Key(t, kb.ArrowRight)
	b.Wait(t, "the address to follow the step", `new URLSearchParams(location.search).get("at") === String(LV.app.timeline.events[LV.app.cursor - 1].seq) && LV.app.cursor > 0`, `location.search`)
	if q := browser.Eval[string](t, b, `location.search`); !strings.Contains(q, "key=default%2Fdemo") || !strings.Contains(q, "lang=zh-TW") || !strings.Contains(q, "presenter=1") {
		t.Errorf("after a step the address is %q; it lost the key, the language or presenter mode", q)
	}
}

// 情境：部落格的一欄（720 px）用 iframe 嵌入 ?embed=1：只有說明列、管線與精簡的時間軸，沒有捲軸；頁面用
// postMessage 告訴外面它要多高，iframe 設成那個高度（比一開始矮）之後，裡面也沒有垂直捲軸。一站一站走過解說，
// 說明列的高度不變。
//
// The story: a blog's column (720 px) embeds ?embed=1 in an iframe: only the
// caption bar, the pipeline and a compact timeline, no scrollbar; the page
// tells its parent its height by postMessage, and with the iframe set to that
// height (smaller than it started) there is no vertical scrollbar inside
// either. Walked through the tour stop by stop, the caption bar's height does
// not change.
func TestEmbedFitsABlogColumn(t *testing.T) {
	for _, path := range []string{
		filepath.Join(root, "step04-controller", "testdata", "demo.recording.jsonl"),
		filepath.Join(root, "step06-custom-resource", "testdata", "demo.recording.jsonl"),
	} {
		t.Run(name(path), func(t *testing.T) {
			// 兩個檔案放在同一個本機的網站上：file:// 的 iframe 不同源，測試就讀不到裡面。
			// Both files on one local site: a file:// iframe is cross-origin, and the test could not look inside.
			page := strings.TrimPrefix(exported(t, path), "file://")
			dir := filepath.Dir(page)
			site := httptest.NewServer(http.FileServer(http.Dir(dir)))
			defer site.Close()
			parent := filepath.Join(dir, "post.html")
			html := `<!doctype html><meta charset="utf-8"><body style="margin:0"><div style="width:720px">
<iframe id="f" src="` + filepath.Base(page) + `?embed=1&at=end" style="width:720px;height:1400px;border:0"></iframe></div>
<script>window.heights = []; addEventListener("message", (m) => { if (m.data && m.data.type === "informer-walkthrough:height") { window.heights.push(m.data.height); document.getElementById("f").style.height = m.data.height + "px"; } });</script>`
			if err := os.WriteFile(parent, []byte(html), 0o644); err != nil {
				t.Fatal(err)
			}
			b := browser.Start(t, 1000, 900)
			b.Open(t, site.URL+"/post.html")
			b.Wait(t, "the embed to say its height", `window.heights.length > 0`, `JSON.stringify(window.heights)`)
			inner := `document.getElementById("f").contentDocument`
			b.Wait(t, "the embed to load", inner+`.body.dataset.synced === "true" && `+inner+`.defaultView.LV.app.ended`, inner+`.body.dataset.cursor`)
			// iframe 一開始比內容高：它要縮成內容的高度，不能只會變高。
			// The iframe starts taller than its content: it must shrink to the content, not only ever grow.
			b.Wait(t, "the iframe to take the height it was told",
				`(() => { const d = `+inner+`; const h = document.getElementById("f").getBoundingClientRect().height; return h < 1400 && Math.abs(h - d.body.getBoundingClientRect().height) <= 1; })()`,
				`JSON.stringify(window.heights)`)
			got := browser.Eval[map[string]any](t, b, `(() => { const d = `+inner+`; const w = d.defaultView; return {
				sideways: d.documentElement.scrollWidth > w.innerWidth + 1,
				downwards: d.documentElement.scrollHeight > w.innerHeight + 1,
				header: w.getComputedStyle(d.getElementById("top")).display,
				log: w.getComputedStyle(d.getElementById("log")).display,
				pipeline: d.getElementById("pipeline").getBoundingClientRect().width > 0,
				caption: d.getElementById("caption").getBoundingClientRect().height > 0 }; })()`)
			if got["sideways"] != false || got["downwards"] != false || got["header"] != "none" || got["log"] != "none" || got["pipeline"] != true || got["caption"] != true {
				t.Errorf("embedded in a 720 px column: %v; want no scrolling, no header or log, the pipeline and the caption bar", got)
			}
			// 一站一站走過去（答案都揭曉），說明列一直是同一個高度：說明長短不同，部落格的內文不會因此跟著跳。
			// Walked stop by stop (every answer revealed), the caption bar keeps one height: captions of different
			// lengths do not make the blog's text below jump.
			browser.Eval[bool](t, b, `(() => { const d = `+inner+`; const w = d.defaultView; const c = w.LV.app.controls; const out = [];
				window.walked = null;
				const frames = () => new Promise((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(r)));
				(async () => {
					for (let i = 0; c.tour && i < c.tour.stops.length; i++) {
						c.goStop(i, false);
						c.revealed = true;
						w.LV.app.draw();
						await frames();
						out.push(Math.round(d.getElementById("caption").getBoundingClientRect().height));
					}
					window.walked = out;
				})();
				return true; })()`)
			b.Wait(t, "the walk through the stops", `window.walked !== null`, `String(window.walked)`)
			walked := browser.Eval[[]float64](t, b, `window.walked`)
			if len(walked) == 0 {
				t.Fatal("the embedded page has no tour to walk")
			}
			for i, h := range walked {
				if h != walked[0] {
					t.Errorf("at stop %d the caption bar is %.0f px tall, at stop 1 %.0f px: it changes from stop to stop (%v)", i+1, h, walked[0], walked)
					break
				}
			}
		})
	}
}

// 情境：解說模式。頁面從頭播放，停在第一站，說明列用選的語言寫著那一站的說明；有問題的那一站先問、不答，
// PageDown 揭曉答案，再按一次 PageDown 播到下一站；PageUp 回到上一站。每一站都用中文試一次。
//
// The story: tour mode. The page plays from the start and stops at the first
// stop, the caption bar showing that stop's caption in the chosen language; a
// stop with a question asks without answering, PageDown reveals the answer,
// another PageDown plays on to the next stop; PageUp goes back a stop. Every
// stop is tried in Chinese too.
func TestTourStopsAndAsks(t *testing.T) {
	testenv.FullTier(t, "plays step 04's tour at its real pace through every stop, about 25 s")
	path := filepath.Join(root, "step04-controller", "testdata", "demo.recording.jsonl")
	_, rec := recording(t, path)
	data, err := os.ReadFile(liveview.TourPath(path))
	if err != nil {
		t.Fatal(err)
	}
	tour, err := liveview.ReadTour(data)
	if err != nil {
		t.Fatal(err)
	}
	b := browser.Start(t, 1280, 800)
	b.Open(t, exported(t, path)+"?speed=4&lang=en")
	b.Wait(t, "the tour to stop at its first stop", `LV.app.ended && !LV.app.playing && document.getElementById("caption").dataset.stop === "1"`, `document.getElementById("caption").dataset.stop`)
	caption := func() string {
		return browser.Eval[string](t, b, `document.querySelector("#caption .text").textContent`)
	}
	if got := caption(); got != tour.Stops[0].Caption.En {
		t.Errorf("at stop 1 the caption says %q; want %q", got, tour.Stops[0].Caption.En)
	}
	// 用中文把每一站走一遍：一站有問題時，先問、PageDown 揭曉，再 PageDown 往下。
	// Walk every stop in Chinese: where a stop has a question, it asks, PageDown reveals, PageDown again moves on.
	b.Key(t, "l")
	for i, s := range tour.Stops {
		at := strconv.Itoa(i + 1)
		b.Wait(t, "stop "+at, `!LV.app.playing && document.getElementById("caption").dataset.stop === "`+at+`"`, `document.getElementById("caption").dataset.stop`)
		if got := caption(); got != s.Caption.Zh {
			t.Errorf("stop %d in Chinese says %q; want %q", i+1, got, s.Caption.Zh)
		}
		if s.Seq != browser.Eval[uint64](t, b, `LV.app.timeline.events[LV.app.cursor - 1].seq`) {
			t.Errorf("stop %d is not at event %d", i+1, s.Seq)
		}
		if s.Question != nil {
			q := `document.querySelector("#caption .question")`
			if got := browser.Eval[string](t, b, q+`.dataset.state + " " + `+q+`.textContent`); !strings.HasPrefix(got, "asked "+s.Question.Zh) || strings.Contains(got, s.Question.Answer.Zh) {
				t.Errorf("stop %d: the question reads %q; want it asked without its answer", i+1, got)
			}
			b.Key(t, kb.PageDown)
			b.Wait(t, "the answer", q+`.dataset.state === "answered" && `+q+`.textContent.includes(`+strconv.Quote(s.Question.Answer.Zh)+`)`, q+`.textContent`)
		} else if shown := browser.Eval[string](t, b, `getComputedStyle(document.querySelector("#caption .question")).display`); shown != "none" {
			t.Errorf("stop %d has no question, yet the question line is shown (display %s)", i+1, shown)
		}
		if i == len(tour.Stops)-1 {
			break
		}
		b.Key(t, kb.PageDown)
	}
	b.Key(t, kb.PageUp)
	prev := strconv.Itoa(len(tour.Stops) - 1)
	b.Wait(t, "PageUp to go back a stop", `document.getElementById("caption").dataset.stop === "`+prev+`"`, `document.getElementById("caption").dataset.stop`)

	// 連結開啟第二站：停在那裡；PageDown 往第三站走，不是倒回開頭。
	// A link opens stop 2: it stays there; PageDown goes on to stop 3, not back to the start.
	b.Open(t, exported(t, path)+"?speed=4&lang=en&stop=2")
	b.Wait(t, "the link's stop", `LV.app.ended && !LV.app.playing && document.getElementById("caption").dataset.stop === "2"`, `document.getElementById("caption").dataset.stop`)
	if s := tour.Stops[1]; s.Question != nil {
		b.Key(t, kb.PageDown)
	}
	b.Key(t, kb.PageDown)
	b.Wait(t, "PageDown from the link's stop to reach stop 3", `!LV.app.playing && document.getElementById("caption").dataset.stop === "3"`, `document.getElementById("caption").dataset.stop + " at " + LV.app.cursor`)
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	_ = rec
}

// 情境：頁首在每一種狀態下都一樣高（暫停、播放、到最後、換成中文），狀態標示與播放鈕說的是真的：播放時說
// 「重播中」、鈕是暫停；暫停時說暫停；到最後時說已到最後、鈕說從頭再播；在最後按空白鍵，從頭開始播；
// 重播的「到最後」鈕叫「跳到最後」，不是「跟上即時」。
//
// The story: the header has the same height in every state (paused,
// playing, at the end, switched to Chinese), and the badge and the play
// button tell the truth: playing says replay with a pause button; paused says
// paused; at the end it says so and the button offers to play again; space at
// the end plays from the start; a replay's end button is "Jump to end", not
// "Follow live".
func TestHeaderTellsTheTruth(t *testing.T) {
	path := filepath.Join(root, "step01-listwatcher", "testdata", "demo.recording.jsonl")
	b := browser.Start(t, 1280, 800)
	b.Open(t, exported(t, path)+"?tour=0&at=end&lang=en")
	b.Wait(t, "the page to load", loaded, `document.body.dataset.cursor`)
	state := `[document.getElementById("top").getBoundingClientRect().height, document.getElementById("timeline").getBoundingClientRect().height, document.getElementById("status").dataset.status, document.getElementById("play").getAttribute("aria-label"), document.getElementById("follow").getAttribute("aria-label")].join(" | ")`
	heights := func(s string) string { return strings.Join(strings.Split(s, " | ")[:2], " | ") }
	atEnd := browser.Eval[string](t, b, state)
	if !strings.HasSuffix(atEnd, "end | Play again from the start | Jump to end") {
		t.Errorf("at the end: %q; want the end badge, play again, and Jump to end", atEnd)
	}
	b.Key(t, " ")
	b.Wait(t, "space at the end to play from the start", `LV.app.playing && LV.app.cursor < 3`, `LV.app.cursor`)
	playing := browser.Eval[string](t, b, state)
	if !strings.HasSuffix(playing, "replay | Pause | Jump to end") || heights(playing) != heights(atEnd) {
		t.Errorf("playing: %q; want the replay badge, a pause button and the same header height as %q", playing, atEnd)
	}
	b.Key(t, " ")
	b.Wait(t, "space to pause", `!LV.app.playing`, `LV.app.playing`)
	paused := browser.Eval[string](t, b, state)
	if !strings.HasSuffix(paused, "paused | Play | Jump to end") || heights(paused) != heights(atEnd) {
		t.Errorf("paused: %q; want the paused badge, a play button and the same header height as %q", paused, atEnd)
	}
	b.Key(t, "l")
	b.Wait(t, "Chinese", `document.documentElement.lang === "zh-TW"`, `document.documentElement.lang`)
	if zh := browser.Eval[string](t, b, state); heights(zh) != heights(atEnd) || !strings.Contains(zh, "跳到最後") {
		t.Errorf("in Chinese: %q; want the same header height as %q, and 跳到最後", zh, atEnd)
	}
	b.Key(t, "?")
	if shown := browser.Eval[bool](t, b, `!document.getElementById("help").hidden && document.getElementById("help").textContent.includes("PageDown")`); !shown {
		t.Error("? did not open the list of keys")
	}
}

// 情境：投影機上照著解說走：簡報模式、1024×768、兩種語言，每一份有解說的錄製檔的每一站（以 ?stop=N 開啟），
// 有問題的那一站也按 PageDown 揭曉答案；每一刻整條管線都在畫面裡，沒有字跑出方框。步驟 07 的解說另外從第一站
// 一路按 PageDown 走完：說明列在問題與答案時長高，管線曾經只在這樣走的時候被推到畫面外。
//
// The story: tours on a projector: presenter mode, 1024×768, both
// languages, every stop of every recording with a tour (opened with
// ?stop=N), the answer revealed with PageDown where there is a question; at
// every moment the whole pipeline is on the screen and no text runs out of
// its box. Step 07's tour is also walked with PageDown from the first stop
// on: the caption bar grows for a question and its answer, and once pushed
// the pipeline off the screen only when walked that way.
func TestPresenterFitsThroughTheTour(t *testing.T) {
	testenv.FullTier(t, "every tour stop, asked and answered, in both languages, about 50 s")
	b := browser.Start(t, 1024, 768)
	b.Viewport(t, 1024, 768)
	check := func(t *testing.T, where string) {
		t.Helper()
		// 說明列的大小一變，ResizeObserver 在下一格畫面才重新判斷：等兩格畫面再量。
		// When the caption bar changes size, the ResizeObserver decides again on the next frame: measure two frames later.
		b.Settle(t)
		if bad := browser.Eval[[]string](t, b, overflow); len(bad) > 0 {
			t.Errorf("%s: %d things do not fit:\n%s", where, len(bad), strings.Join(bad, "\n"))
		}
	}
	reveal := func(t *testing.T, at string) {
		t.Helper()
		b.Key(t, kb.PageDown)
		b.Wait(t, "the answer at stop "+at, `document.querySelector("#caption .question").dataset.state === "answered"`, `document.querySelector("#caption .question").dataset.state`)
		check(t, "stop "+at+", answered")
	}
	for _, path := range recordings(t) {
		data, err := os.ReadFile(liveview.TourPath(path))
		if err != nil {
			continue
		}
		tour, err := liveview.ReadTour(data)
		if err != nil {
			t.Fatal(err)
		}
		url := exported(t, path)
		for _, lang := range []string{"en", "zh-TW"} {
			t.Run(name(path)+"/"+lang, func(t *testing.T) {
				for i, s := range tour.Stops {
					at := strconv.Itoa(i + 1)
					b.Open(t, url+"?presenter=1&lang="+lang+"&stop="+at)
					b.Wait(t, "stop "+at, `document.body.dataset.synced === "true" && !LV.app.playing && document.getElementById("caption").dataset.stop === "`+at+`"`, `document.getElementById("caption").dataset.stop`)
					check(t, "stop "+at)
					if s.Question != nil {
						reveal(t, at)
					}
				}
				if !strings.HasPrefix(name(path), "step07-") {
					return
				}
				b.Open(t, url+"?presenter=1&lang="+lang+"&speed=4&stop=1")
				for i, s := range tour.Stops {
					at := strconv.Itoa(i + 1)
					b.Wait(t, "walking to stop "+at, `!LV.app.playing && document.getElementById("caption").dataset.stop === "`+at+`"`, `document.getElementById("caption").dataset.stop`)
					check(t, "walking, stop "+at)
					if s.Question != nil {
						reveal(t, at)
					}
					if i < len(tour.Stops)-1 {
						b.Key(t, kb.PageDown)
					}
				}
			})
		}
	}
}
