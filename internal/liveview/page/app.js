// app.js：把串流（即時的 /events、伺服器重播的錄製檔，或內嵌在匯出檔裡的錄製檔）接到時間軸上，
// 並且每一格畫面最多畫一次：爆量時瀏覽器把很多筆事件合成一次重畫。
// Connects the stream (live /events, a recording the server replays, or one embedded in an exported file) to the
// timeline, and draws at most once per frame: in a burst the browser folds many events into one redraw.
"use strict";
window.LV = window.LV || {};
LV.animate = true;

LV.App = class {
  constructor() {
    this.token = (document.querySelector('meta[name="live-token"]') || {}).content || "";
    this.mode = (document.querySelector('meta[name="live-mode"]') || {}).content || "live";
    this.cursor = 0;
    this.following = true;
    this.playing = false;
    this.connected = false;
    this.ended = false;
    this.frame = 0;
    this.draws = 0;
    this.keys = new Set();
  }

  async start() {
    const embedded = document.getElementById("recording");
    if (embedded) {
      this.mode = "export";
      const rec = LV.parseRecording(embedded.textContent);
      this.begin(rec.header.pipeline);
      for (const e of rec.events) if (this.timeline.add(e)) this.addKey(e);
      this.loaded(rec.error);
      return;
    }
    const pipeline = await (await fetch("pipeline.json")).json();
    this.begin(pipeline);
    document.getElementById("scene").hidden = this.mode !== "live";
    // 同步失敗的按鈕只給 sync 會讀那個 annotation 的步驟（04、05 --controller）。
    // The sync-failure buttons only for steps whose sync reads that annotation (04, 05 --controller).
    for (const b of document.querySelectorAll('#scene-form button[data-args^="fail-"]')) b.hidden = !pipeline.failAnnotation;
    this.connect();
    // 即時跟著、有重試在等的時候，每 250 ms 重畫一次，讓退避倒數。 / Following live with retries waiting: redraw every 250 ms so backoffs count down.
    setInterval(() => {
      if (this.following && this.connected && Object.keys(this.timeline.latest.workqueue.retries).length) this.schedule();
    }, 250);
  }

  begin(pipeline) {
    this.timeline = new LV.Timeline(pipeline);
    this.renderer = new LV.Renderer(document.body, pipeline);
    this.renderer.onSelect = (key) => this.select(key === this.renderer.selected ? "" : key);
    // 按鈕與鍵盤只接一次：開啟另一個錄製檔時再接一次，每個按鍵就會做兩次。
    // The buttons and keys are wired once: wiring them again for another recording would make every key act twice.
    if (this.controls) this.controls.labels();
    else this.controls = new LV.Controls(this);
    this.fillFilters();
    this.draw();
  }

  // loaded 在整份錄製檔讀完時呼叫：從頭開始播放，網址帶 ?at=end 時直接跳到最後。
  // loaded runs once a whole recording is in: play from the start, or jump to the end with ?at=end.
  loaded(error) {
    this.ended = true;
    if (error) this.banner(LV.t("readError") + ": " + error);
    document.body.dataset.synced = "true";
    if (new URLSearchParams(location.search).get("at") === "end") {
      this.followLive();
    } else {
      this.following = false;
      this.cursor = 0;
      this.play();
    }
  }

  connect() {
    const es = (this.es = new EventSource("events"));
    es.onmessage = (msg) => this.receive(JSON.parse(msg.data));
    es.addEventListener("synced", () => {
      this.connected = true;
      document.body.dataset.synced = "true";
      this.updateStatus();
    });
    es.addEventListener("end", () => {
      es.close();
      this.connected = false;
      if (this.mode === "replay") this.loaded(null);
      this.updateStatus();
    });
    es.onerror = () => {
      this.connected = false;
      this.updateStatus();
    };
  }

  receive(e) {
    if (!this.timeline.add(e)) return;
    this.lastWall = performance.now();
    this.addKey(e);
    if (this.following) this.cursor = this.timeline.events.length;
    this.schedule();
  }

  // addKey 把物件的 key 加進篩選選單；請求的路徑、metric 的名字、說明行都不是物件。
  // addKey adds an object's key to the filter menu; request paths, metric names and notes are not objects.
  addKey(e) {
    if (e.note || e.source === "request" || e.source === "metric" || !e.key || !e.key.includes("/") || this.keys.has(e.key)) return;
    this.keys.add(e.key);
    this.fillFilters();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  draw() {
    const events = this.timeline.events;
    this.cursor = Math.max(0, Math.min(this.cursor, events.length));
    const state = this.cursor === events.length ? this.timeline.latest : this.timeline.stateAt(this.cursor);
    LV.animate = this.following || this.playing;
    const live = this.following && this.connected && this.cursor === events.length && events.length;
    this.renderer.render(state, events, this.cursor, live ? state.t + (performance.now() - this.lastWall) : state.t);
    const slider = document.getElementById("slider");
    slider.max = events.length;
    slider.value = this.cursor;
    const last = events[this.cursor - 1];
    document.getElementById("position").textContent =
      LV.t("event") + " " + (last ? last.seq : 0) + " " + LV.t("of") + " " + (events.length ? events[events.length - 1].seq : 0) +
      (last ? " · " + (last.t / 1000).toFixed(1) + " s" : "");
    document.body.dataset.cursor = this.cursor;
    document.body.dataset.total = events.length;
    if (this.timeline.droppedBefore) this.banner(LV.t("dropped") + " " + this.timeline.droppedBefore);
    this.updateStatus();
    // draws 數重畫的次數；onDrawn 讓基準測試知道每筆事件何時畫上頁面。
    // draws counts the redraws; onDrawn tells the benchmark when each event reached the page.
    this.draws++;
    if (LV.onDrawn) LV.onDrawn(events);
  }

  seek(n) {
    this.following = false;
    this.pause();
    this.cursor = n;
    this.draw();
  }

  followLive() {
    this.following = true;
    this.pause();
    this.cursor = this.timeline.events.length;
    this.draw();
  }

  togglePlay() {
    if (this.playing) this.pause();
    else if (this.following && !this.ended) this.seek(this.cursor);
    else this.play();
  }

  // play 從游標往後，照事件原本的時間間隔一筆一筆放（間隔最多一秒），放到最後就停。
  // play steps forward from the cursor at the events' own pace (gaps capped at one second) and stops at the end.
  play() {
    this.playing = true;
    this.following = false;
    const next = () => {
      if (!this.playing) return;
      const events = this.timeline.events;
      if (this.cursor >= events.length) {
        this.playing = false;
        this.following = true;
        this.draw();
        return;
      }
      this.cursor++;
      this.draw();
      const gap = this.cursor < events.length ? events[this.cursor].t - events[this.cursor - 1].t : 0;
      this.timer = setTimeout(next, Math.max(16, Math.min(1000, gap)));
    };
    next();
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
  }

  select(key) {
    this.renderer.selected = key;
    this.renderer.filterKey = key;
    document.getElementById("filter-key").value = key;
    this.draw();
  }

  fillFilters() {
    const keySel = document.getElementById("filter-key");
    const value = keySel.value;
    keySel.replaceChildren(LV.el("option", { value: "" }, LV.t("allKeys")), ...[...this.keys].sort().map((k) => LV.el("option", { value: k }, k)));
    keySel.value = value;
    const stageSel = document.getElementById("filter-stage");
    const sv = stageSel.value;
    stageSel.replaceChildren(
      LV.el("option", { value: "" }, LV.t("allStages")),
      ...this.timeline.pipeline.stages.map((s) => LV.el("option", { value: s.id }, LV.pick(s.label))),
      LV.el("option", { value: "metric" }, LV.t("metrics")),
    );
    stageSel.value = sv;
  }

  updateStatus() {
    const status = document.getElementById("status");
    if (!status) return;
    let key = this.mode === "live" ? (this.connected ? "live" : this.ended || this.timeline ? "disconnected" : "live") : "replay";
    if (!this.following && !this.playing) key = "paused";
    // 即時的頁面倒帶後按下播放：放的是過去，不是即時。 / A live page rewound and played: it plays the past, not live.
    if (this.playing && this.mode === "live") key = "rewound";
    status.textContent = LV.t(key);
    status.dataset.status = key;
    // 步驟停了（或還沒連上），場景按鈕就沒有人接：停用它們。 / With the step stopped (or not yet connected), nobody answers the scene buttons: disable them.
    for (const b of document.querySelectorAll("#scene-form button")) b.disabled = this.mode === "live" && !this.connected;
    const play = document.getElementById("play");
    play.textContent = LV.t(this.playing ? "pause" : "play");
  }

  banner(text) {
    const b = document.getElementById("banner");
    b.hidden = false;
    b.textContent = text;
  }

  // openFile 讀一個錄製檔並重播它；壞掉的那一行之前讀到的照樣畫出來。
  // openFile reads a recording and replays it; what was read before a broken line is still drawn.
  openFile(file) {
    const reader = new FileReader();
    reader.onload = () => {
      const rec = LV.parseRecording(String(reader.result));
      if (!rec.header) {
        this.banner(LV.t("readError") + ": " + rec.error);
        return;
      }
      // 開啟的檔案取代即時的串流：不再接收步驟的事件。 / The opened file replaces the live stream: no more of the step's events.
      if (this.es) {
        this.es.close();
        this.es = null;
        this.connected = false;
      }
      this.mode = "export";
      this.pause();
      document.getElementById("banner").hidden = true;
      this.keys = new Set();
      this.begin(rec.header.pipeline);
      for (const e of rec.events) this.receive(e);
      document.getElementById("scene").hidden = true;
      this.loaded(rec.error);
    };
    reader.readAsText(file);
  }
};

// LV.parseRecording 讀 JSON Lines 的錄製檔（第一行是檔頭），跟 Go 的 ReadRecording 規則相同：錯誤指出第幾行，
// 讀到的部分照樣回傳。
// LV.parseRecording reads a JSON Lines recording (the first line is the header) by the same rules as Go's
// ReadRecording: an error names the line, and what was read comes back anyway.
LV.parseRecording = function (text) {
  const out = { header: null, events: [], error: null };
  const lines = text.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    let v;
    try {
      v = JSON.parse(lines[i]);
    } catch (e) {
      out.error = "line " + (i + 1) + ": " + e.message;
      return out;
    }
    if (i === 0) {
      if (!v || v.format !== "informer-walkthrough-recording") {
        out.error = "line 1: not an informer-walkthrough recording";
        return out;
      }
      if (v.version !== 1) {
        out.error = "line 1: recording version " + v.version + " is unknown (this page reads version 1)";
        return out;
      }
      out.header = v;
      continue;
    }
    if (!v || !v.seq) {
      out.error = "line " + (i + 1) + ": an event without a seq";
      return out;
    }
    out.events.push(v);
  }
  if (!out.header) out.error = "line 1: the recording is empty";
  return out;
};

document.addEventListener("DOMContentLoaded", () => {
  LV.app = new LV.App();
  LV.app.start().catch((e) => {
    document.body.dataset.error = String(e);
    console.error(e);
  });
});
