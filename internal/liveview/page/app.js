// app.js：把串流（即時的 /events、伺服器重播的錄製檔，或內嵌在匯出檔裡的錄製檔）接到時間軸上，
// 並且每一格畫面最多畫一次：爆量時瀏覽器把很多筆事件合成一次重畫。重播照教學的步調放：每一筆畫得出來的事件
// 都有看得清楚的時間，整段示範至少 20 秒；即時的頁面照真實的時間。
// Connects the stream (live /events, a recording the server replays, or one embedded in an exported file) to the
// timeline, and draws at most once per frame: in a burst the browser folds many events into one redraw. A replay
// plays at a teaching pace: every event that draws something gets time enough to see, and a whole demo takes at
// least 20 seconds; a live page runs in real time.
"use strict";
window.LV = window.LV || {};
LV.animate = true;
LV.speed = 1;
// 重播時每一筆畫得出來的事件在 1× 下至少停這麼久，整段至少 REPLAY_MS。 / At 1× a replay gives each event that draws something at least this long, and the whole at least REPLAY_MS.
LV.STEP_MS = 900;
LV.REPLAY_MS = 20000;
LV.SPEEDS = [0.25, 0.5, 1, 2, 4];

LV.App = class {
  constructor() {
    this.token = (document.querySelector('meta[name="live-token"]') || {}).content || "";
    this.mode = (document.querySelector('meta[name="live-mode"]') || {}).content || "live";
    this.params = new URLSearchParams(location.search);
    this.cursor = 0;
    this.following = true;
    this.playing = false;
    this.connected = false;
    this.ended = false;
    this.frame = 0;
    this.draws = 0;
    this.keys = new Set();
    this.keysDirty = false;
    this.showAll = false;
  }

  async start() {
    const embedded = document.getElementById("recording");
    if (embedded) {
      this.mode = "export";
      const rec = LV.parseRecording(embedded.textContent);
      if (!rec.header) {
        document.body.dataset.error = rec.error;
        this.banner(LV.t("readError") + LV.t("colon") + rec.error);
        return;
      }
      this.begin(rec.header.pipeline, 0);
      for (const e of rec.events) if (this.timeline.add(e)) this.addKey(e);
      this.fillFilters();
      this.loaded(rec.error);
      return;
    }
    const pipeline = await (await fetch("pipeline.json" + this.authQuery())).json();
    this.begin(pipeline, LV.MAX_EVENTS);
    document.getElementById("scene").hidden = this.mode !== "live";
    // 同步失敗的按鈕只給 sync 會讀那個 annotation 的步驟。 / The sync-failure buttons only for steps whose sync reads that annotation.
    for (const b of document.querySelectorAll('#scene-form button[data-args^="fail-"]')) b.hidden = !pipeline.failAnnotation;
    this.connect();
    // 即時跟著、有重試在等的時候，每 250 ms 重畫一次，讓退避倒數。 / Following live with retries waiting: redraw every 250 ms so backoffs count down.
    setInterval(() => {
      if (this.following && this.connected && Object.keys(this.timeline.latest.workqueue.retries).length) this.schedule();
    }, 250);
  }

  // authQuery 是遠端模式下每個請求都要帶的 token（?token=…），本機模式是空字串。
  // authQuery is the token every request carries in remote mode (?token=…), empty on loopback.
  authQuery() {
    const t = this.params.get("token");
    return t ? "?token=" + encodeURIComponent(t) : "";
  }

  begin(pipeline, max) {
    this.timeline = new LV.Timeline(pipeline, max);
    this.renderer = new LV.Renderer(document.body, pipeline);
    this.renderer.onSelect = (key) => this.select(key === this.renderer.selected ? "" : key);
    // 按鈕與鍵盤只接一次：開啟另一個錄製檔時再接一次，每個按鍵就會做兩次。
    // The buttons and keys are wired once: wiring them again for another recording would make every key act twice.
    if (this.controls) this.controls.labels();
    else this.controls = new LV.Controls(this);
    this.fillFilters();
    this.draw();
  }

  // loaded 在整份錄製檔讀完時呼叫：照網址停在指定的那一刻（?at=…），不然從頭開始、照教學的步調播放。
  // loaded runs once a whole recording is in: stop at the moment the address names (?at=…), or else play from the
  // start at a teaching pace.
  loaded(error) {
    this.controls.tourReady.then(() => this.begun(error));
  }

  begun(error) {
    this.ended = true;
    if (error) this.banner(LV.t("readError") + LV.t("colon") + error);
    document.body.dataset.synced = "true";
    const atStop = this.controls.restore(this.params);
    const at = this.params.get("at");
    // ?stop=… 已經停在那一站（?at=… 再把游標放到確切的那一刻）；之後的「下一站」從那裡往下走。
    // ?stop=… is already at that stop (?at=… then puts the cursor at the exact moment); "next" goes on from there.
    if (at === "end") {
      this.toEnd();
    } else if (at !== null && at !== "") {
      this.seek(this.indexOfSeq(Number(at)));
    } else if (atStop) {
      return;
    } else if (this.controls.tour) {
      this.controls.tourStart();
    } else {
      this.following = false;
      this.cursor = 0;
      this.play();
    }
  }

  // indexOfSeq 把事件的 seq 換成游標的位置（停在那一筆之後）。 / indexOfSeq turns an event's seq into a cursor position (just after it).
  indexOfSeq(seq) {
    const ev = this.timeline.events;
    let lo = 0, hi = ev.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ev[mid].seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  connect() {
    const es = (this.es = new EventSource("events" + this.authQuery()));
    es.onmessage = (msg) => this.receive(JSON.parse(msg.data));
    es.addEventListener("synced", () => {
      this.connected = true;
      document.body.dataset.synced = "true";
      this.fillFilters();
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

  // addKey 把物件的 key 記下來給篩選選單；選單在下一次重畫時才重建一次，不是每個新 key 一次。
  // addKey notes an object's key for the filter menu; the menu is rebuilt once at the next redraw, not once per new key.
  addKey(e) {
    for (const k of e.keys && e.keys.length ? e.keys : [e.key]) {
      if (LV.isKey(k) && !this.keys.has(k)) {
        this.keys.add(k);
        this.keysDirty = true;
      }
    }
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
    if (this.keysDirty && this.connected) this.fillFilters();
    const live = this.following && this.connected && this.cursor === events.length && events.length;
    this.renderer.render(state, events, this.cursor, live ? state.t + (performance.now() - this.lastWall) : state.t);
    const slider = document.getElementById("slider");
    slider.max = events.length;
    slider.value = this.cursor;
    const last = events[this.cursor - 1];
    const total = events.length ? events[events.length - 1].seq : 0;
    document.getElementById("position").textContent = LV.position(last ? last.seq : 0, total, last ? last.t : 0);
    document.body.dataset.cursor = this.cursor;
    document.body.dataset.total = events.length;
    if (this.timeline.droppedBefore) this.banner(LV.t("dropped") + LV.t("gap") + this.timeline.droppedBefore);
    this.controls.caption(state, last);
    this.updateStatus();
    this.controls.saveURL();
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

  // step 往前或往後到下一筆「畫得出來」的事件（只改變量表之外看不見的 metric 直接跳過；showAll 時一筆一筆走）。
  // step moves to the next event, forward or back, that draws something (a metric that changes nothing drawn is
  // skipped; with showAll it goes one event at a time).
  step(dir) {
    const n = this.timeline.events.length;
    let c = this.cursor + dir;
    if (!this.showAll) {
      while (c > 0 && c < n && !this.visible(c - 1)) c += dir;
    }
    this.seek(Math.max(0, Math.min(n, c)));
  }

  // visible 說第 i 筆事件是否改變畫面上的東西：不是 metric 的都算；metric 只有在它是某個方框宣告的深度時才算。
  // visible says whether event i changes something drawn: anything but a metric does; a metric does only when it is
  // the depth a box declares.
  visible(i) {
    const e = this.timeline.events[i];
    if (!e || e.op !== "metric") return true;
    return this.timeline.pipeline.stages.some((s) => s.depth && s.depth === e.what && (!s.depthOf || (e.key || "").endsWith("/" + s.depthOf)));
  }

  toEnd() {
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

  // pace 是重播時一筆畫得出來的事件停多久（1× 時）：至少 STEP_MS，而且整段至少 REPLAY_MS。
  // pace is how long a replay dwells on an event that draws something (at 1×): STEP_MS at least, and the whole at
  // least REPLAY_MS.
  pace() {
    if (this.paceMs) return this.paceMs;
    let n = 0;
    for (let i = 0; i < this.timeline.events.length; i++) if (this.visible(i)) n++;
    // 第一筆在 0 秒就畫出來，最後一筆在 (n−1) 個間隔之後：所以整段除以 n−1。
    // The first event is drawn at 0 s and the last after n−1 intervals: hence the whole divided by n−1.
    this.paceMs = Math.max(LV.STEP_MS, LV.REPLAY_MS / Math.max(1, n - 1));
    return this.paceMs;
  }

  // play 從游標往後放，照教學的步調；放到最後就停。在最後按播放，從頭開始。解說模式下，每一站都停下來。
  // play steps forward from the cursor at a teaching pace and stops at the end. Play at the end starts again from
  // the beginning. In a tour, it stops at every stop.
  play() {
    const events = this.timeline.events;
    if (this.cursor >= events.length) this.cursor = 0;
    this.playing = true;
    this.following = false;
    const next = () => {
      if (!this.playing) return;
      if (this.cursor >= events.length) {
        this.playing = false;
        this.draw();
        return;
      }
      this.cursor++;
      while (this.cursor < events.length && !this.visible(this.cursor - 1)) this.cursor++;
      if (this.controls.atStop(this.cursor)) {
        this.playing = false;
        this.draw();
        return;
      }
      this.draw();
      this.timer = setTimeout(next, this.pace() / LV.speed);
    };
    next();
  }

  pause() {
    const was = this.playing;
    this.playing = false;
    clearTimeout(this.timer);
    if (was) this.draw();
  }

  select(key) {
    this.renderer.selected = key;
    this.renderer.filterKey = key;
    document.getElementById("filter-key").value = key;
    this.draw();
  }

  fillFilters() {
    this.keysDirty = false;
    const keySel = document.getElementById("filter-key");
    const value = keySel.value || this.renderer.selected;
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

  // updateStatus 讓狀態標示與播放鈕永遠說真話：即時、回溯播放、重播、暫停、結束、步驟已停止。
  // updateStatus keeps the badge and the play button truthful: live, playing back, replay, paused, at the end, step
  // stopped.
  updateStatus() {
    const status = document.getElementById("status");
    if (!status || !this.timeline) return;
    const atEnd = this.cursor >= this.timeline.events.length;
    let key;
    if (this.mode === "live") {
      if (this.playing) key = "rewound";
      else if (!this.following) key = "paused";
      else key = this.connected ? "live" : "disconnected";
    } else if (this.playing) key = "replay";
    else key = atEnd ? "end" : "paused";
    status.textContent = LV.t(key);
    status.dataset.status = key;
    // 步驟停了（或還沒連上），場景按鈕就沒有人接：停用它們。 / With the step stopped (or not yet connected), nobody answers the scene buttons: disable them.
    for (const b of document.querySelectorAll("#scene-form button")) b.disabled = this.mode === "live" && !this.connected;
    const play = document.getElementById("play");
    play.dataset.state = this.playing ? "playing" : "paused";
    play.setAttribute("aria-label", LV.t(this.playing ? "pause" : atEnd && this.mode !== "live" ? "replayAgain" : "play"));
    play.title = play.getAttribute("aria-label") + " (space)";
    const follow = document.getElementById("follow");
    follow.setAttribute("aria-label", LV.t(this.mode === "live" ? "follow" : "jumpEnd"));
    follow.title = follow.getAttribute("aria-label") + " (End)";
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
        this.banner(LV.t("readError") + LV.t("colon") + rec.error);
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
      this.paceMs = 0;
      this.controls.setTour(null);
      this.begin(rec.header.pipeline, 0);
      for (const e of rec.events) if (this.timeline.add(e)) this.addKey(e);
      this.fillFilters();
      document.getElementById("scene").hidden = true;
      this.loaded(rec.error);
    };
    reader.readAsText(file);
  }
};

// LV.RECORDING_VERSION 是這個頁面讀得懂的錄製檔版本（internal/liveview 的 RecordingVersion）。
// LV.RECORDING_VERSION is the recording version this page reads (internal/liveview's RecordingVersion).
LV.RECORDING_VERSION = 2;

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
      if (v.version !== LV.RECORDING_VERSION) {
        out.error = "line 1: recording version " + v.version + " is unknown (this page reads version " + LV.RECORDING_VERSION + "; record it again)";
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
