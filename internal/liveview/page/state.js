// state.js：頁面的狀態只從事件串算出來：第 n 筆時的畫面，就是把前 n 筆事件一筆一筆套用上去的結果。
// 即時與重播用的是同一段程式碼；每 256 筆存一個檢查點，拉動時間軸時從最近的檢查點往後算，所以很快。
// The page's state comes from the event stream alone: the picture at event n is what applying the first n events,
// one by one, gives. Live and replay run the same code; a checkpoint every 256 events makes the slider quick.
"use strict";
window.LV = window.LV || {};

// podDesc 讀 show.Pod 的描述：phase=Running node=kwok-node-0 labels=app=demo (deleting)。
// podDesc reads show.Pod's description: phase=Running node=kwok-node-0 labels=app=demo (deleting).
LV.podDesc = function (detail) {
  const m = /^phase=(\S*)(?: node=(\S+))? labels=([^\s,]+(?:,[^\s,]+)*)( \(deleting\))?/.exec(detail || "");
  if (!m) return null;
  return { phase: m[1], node: m[2] || "", labels: m[3], deleting: !!m[4] };
};

// applyChanges 套用 show.Changes 的描述（labels a -> b; nodeName set to N; phase A -> B; deletionTimestamp set）。
// applyChanges applies show.Changes' description (labels a -> b; nodeName set to N; phase A -> B; deletionTimestamp set).
LV.applyChanges = function (desc, detail) {
  const d = Object.assign({}, desc);
  for (const part of (detail || "").split("; ")) {
    let m;
    if ((m = /^labels \S+ -> (\S+)$/.exec(part))) d.labels = m[1];
    else if ((m = /^nodeName set to (\S+)$/.exec(part))) d.node = m[1];
    else if ((m = /^phase \S* -> (\S*)$/.exec(part))) d.phase = m[1];
    else if (part === "deletionTimestamp set") d.deleting = true;
  }
  return d;
};

const DELETES = new Set(["DELETED", "Delete", "Deleted", "OnDelete"]);
const TOKEN_LIMIT = 200;

LV.State = class {
  constructor(pipeline) {
    this.pipeline = pipeline;
    this.seq = 0;
    this.t = 0;
    this.applied = 0;
    this.stages = {};
    for (const s of pipeline.stages) this.stages[s.id] = { count: 0, bookmarks: 0, depth: null, last: "" };
    this.tokens = {}; // key -> {stage, seq, kind}
    this.paths = {}; // key -> [stage ids, in the order first visited]
    this.cache = {}; // key -> {phase, node, labels, deleting}
    this.replacing = null; // keys of a Replace in progress (step 02's Store)
    this.index = null; // app value -> [keys]
    this.listeners = {}; // name -> {calls, backlog}
    this.workqueue = { depth: null, retries: {}, workers: {}, merged: 0 };
    this.metrics = {};
    this.rv = "";
    this.note = "";
  }

  // stageOf 回傳點亮這個來源的階段；結尾的 * 是前置字串。 / stageOf returns the stage a source lights up; a trailing * is a prefix.
  stageOf(source) {
    for (const s of this.pipeline.stages) {
      for (const src of s.sources || []) {
        if (src === source || (src.endsWith("*") && source.startsWith(src.slice(0, -1)))) return s.id;
      }
    }
    return "";
  }

  apply(e) {
    this.seq = e.seq;
    this.t = e.t;
    this.applied++;
    if (e.note) return this.applyNote(e.detail);
    if (e.source === "metric") return this.applyMetric(e);
    const stage = this.stageOf(e.source);
    if (stage) {
      const st = this.stages[stage];
      st.count++;
      if (e.what === "Bookmark") st.bookmarks++;
      st.last = e.what;
    }
    const rv = /resourceVersion=(\d+)/.exec(e.detail || "");
    if (rv) this.rv = rv[1];
    if (e.source === "request") return;
    this.applyObject(e, stage);
    this.applyQueued(e, stage);
    this.applyListener(e);
    this.applyWorker(e);
  }

  applyNote(text) {
    this.note = text;
    let m;
    if ((m = /resourceVersion=(\d+)/.exec(text))) this.rv = m[1];
    if ((m = /^index byApp: (.*)$/.exec(text))) {
      this.index = {};
      if (m[1] !== "(empty)") {
        for (const [, app, keys] of m[1].matchAll(/(\S+)=\[([^\]]*)\]/g)) this.index[app] = keys.split(" ").filter(Boolean);
      }
    }
    if (/^Replace carried resourceVersion=/.test(text)) {
      // 一次空的 Replace 沒有印出任何一行：快取裡就什麼都不留。 / An empty Replace printed no line at all: nothing stays.
      const kept = this.replacing || new Set();
      for (const k of Object.keys(this.cache)) if (!kept.has(k)) delete this.cache[k];
      this.replacing = null;
    }
    if ((m = /^Lister\(\)\.Pods\("[^"]*"\)\.Get\("([^"]+)"\): (.*)$/.exec(text))) {
      const desc = LV.podDesc(m[2]);
      const key = Object.keys(this.cache).find((k) => k.endsWith("/" + m[1]));
      if (desc && key) this.cache[key] = desc;
      this.lightStage("lister");
    }
    if ((m = /^(\S+) is already queued/.exec(text))) this.workqueue.merged++;
    if (/^fifo: ReplacedAll/.test(text)) delete this.tokens["ReplacedAll"];
  }

  applyMetric(e) {
    const value = Number(e.detail);
    this.metrics[e.what + "/" + e.key] = value;
    for (const s of this.pipeline.stages) {
      // depthOf 指定 metric 屬於哪個資源（步驟 06 有兩個 informer）。 / depthOf names the metric's resource (step 06 has two informers).
      if (s.depth && s.depth === e.what && (!s.depthOf || e.key.endsWith("/" + s.depthOf))) this.stages[s.id].depth = value;
    }
    if (e.what === "workqueue_depth") this.workqueue.depth = value;
  }

  lightStage(id) {
    if (this.stages[id]) this.stages[id].count++;
  }

  moveToken(key, stage, kind) {
    if (!key || !stage || this.pipeline.stages.find((s) => s.id === stage).opaque) return;
    this.tokens[key] = { stage: stage, seq: this.seq, kind: kind || "pod" };
    const path = (this.paths[key] = this.paths[key] || []);
    if (!path.includes(stage)) path.push(stage);
    const keys = Object.keys(this.tokens);
    if (keys.length > TOKEN_LIMIT) delete this.tokens[keys[0]];
  }

  applyObject(e, stage) {
    const isKey = e.key && e.key.includes("/");
    if (!isKey) {
      // 一次 List 是一個 ReplacedAll，帶著整份清單：畫成一個方塊，處理時才展開成每個物件。
      // A list is one ReplacedAll carrying the whole list: drawn as one block that fans out when processed.
      if (e.what === "Replace" && /ReplacedAll/.test(e.detail)) this.moveToken("ReplacedAll", stage, "block");
      return;
    }
    const gone = DELETES.has(e.what) || /gone from the cache|not in the lister|not in the new list/.test(e.detail);
    // 處理函式一定會把 key 放進 workqueue：有 workqueue 的步驟，標記就停在那裡，等 worker 取走。
    // The handler always queues the key: in a step with a workqueue, the token waits there for a worker.
    const at = stage === "process" && this.stages.workqueue ? "workqueue" : stage;
    if (at !== stage) {
      const path = (this.paths[e.key] = this.paths[e.key] || []);
      if (!path.includes(stage)) path.push(stage);
      this.stages[at].count++;
    }
    this.moveToken(e.key, at, e.what === "FAILED" ? "failed" : gone ? "gone" : "pod");
    if (e.source === "store" && e.what === "Replace") {
      this.replacing = this.replacing || new Set();
      this.replacing.add(e.key);
    }
    // 幾個處理函式看著同一個快取時（步驟 05），只有第一個（跟得上的那個）代表快取：慢的處理函式晚到的 OnAdd
    // 說的是它自己的積壓，不是快取現在的內容，不能讓一個已刪除的 Pod 回到畫面上。
    // When several handlers watch one cache (step 05), only the first (the one that keeps up) stands for the cache:
    // a slow handler's late OnAdd tells of its own backlog, not of what the cache holds now, and must not bring a
    // deleted pod back.
    if (stage === "listeners" && e.source !== this.pipeline.stages.find((s) => s.id === stage).sources[0]) return;
    if (gone) {
      delete this.cache[e.key];
      return;
    }
    const desc = LV.podDesc(e.detail);
    if (desc) {
      this.cache[e.key] = desc;
    } else if (e.what === "OnUpdate" && this.cache[e.key]) {
      this.cache[e.key] = LV.applyChanges(this.cache[e.key], e.detail);
    } else if (/indexer\.(Add|Update)|new to the cache|already in the cache/.test(e.detail) && !this.cache[e.key]) {
      this.cache[e.key] = { phase: "?", node: "", labels: "?", deleting: false };
    }
  }

  // applyQueued：處理函式說出它放進 workqueue 的 key 時（步驟 06 的 ": queued" 與 ": queued tally a, b"，
  // 步驟 07 的 predicate 放行時的 ": reconcile"），每個 key 的標記就移到 workqueue，路徑記下它是從哪個階段來的。
  // applyQueued: when a handler names the keys it put into the workqueue (step 06's ": queued" and ": queued tally
  // a, b", step 07's ": reconcile" when a predicate lets an event through), each key's token moves to the workqueue,
  // and its path records the stage it came from.
  applyQueued(e, stage) {
    if (!this.stages.workqueue || !e.key) return;
    const m = /: (?:queued|reconcile)(?: tally (.+?))?(?: \(initial list\))?$/.exec(e.detail || "");
    if (!m) return;
    const ns = e.key.split("/")[0];
    const keys = m[1] ? m[1].split(", ").map((name) => ns + "/" + name) : [e.key];
    for (const key of keys) {
      const path = (this.paths[key] = this.paths[key] || []);
      if (stage && !path.includes(stage)) path.push(stage);
      this.stages.workqueue.count++;
      this.moveToken(key, "workqueue");
    }
  }

  applyListener(e) {
    if (!this.pipeline.panels || !this.pipeline.panels.includes("listeners")) return;
    if (this.stageOf(e.source) !== "listeners") return;
    const l = (this.listeners[e.source] = this.listeners[e.source] || { calls: 0, backlog: 0 });
    l.calls++;
    const m = /\[(\d+) behind printer\]/.exec(e.detail);
    l.backlog = m ? Number(m[1]) : 0;
  }

  applyWorker(e) {
    if (!/^worker\d+$/.test(e.source)) return;
    const wq = this.workqueue;
    wq.workers[e.source] = { key: e.key, what: e.what, seq: this.seq };
    let m;
    if (e.what === "FAILED" && (m = /retry (\d+)\/(\d+)(?: in (\S+))?/.exec(e.detail))) {
      wq.retries[e.key] = { n: Number(m[1]), of: Number(m[2]), until: m[3] ? this.t + LV.durationMs(m[3]) : null };
    } else {
      delete wq.retries[e.key];
    }
  }

  // waiting 是已經交給處理函式、還沒有 worker 同步過的 key：處理函式一定會把它放進 workqueue。
  // waiting lists the keys handed to a handler and not synced by a worker since: the handler always queues them.
  waiting() {
    const out = [];
    for (const [key, tok] of Object.entries(this.tokens)) {
      if (tok.stage === "workqueue") out.push(key);
    }
    return out.sort();
  }

  clone() {
    const c = new LV.State(this.pipeline);
    const copy = JSON.parse(JSON.stringify(this, (k, v) => (k === "pipeline" ? undefined : v instanceof Set ? { __set: [...v] } : v)));
    Object.assign(c, copy);
    if (copy.replacing && copy.replacing.__set) c.replacing = new Set(copy.replacing.__set);
    c.pipeline = this.pipeline;
    return c;
  }
};

// LV.durationMs 讀 Go 的 time.Duration 字串（5ms、1.5s、2m0s、16m40s）。 / LV.durationMs reads a Go time.Duration string.
LV.durationMs = function (s) {
  let ms = 0;
  for (const [, n, unit] of s.matchAll(/([\d.]+)(ns|µs|us|ms|s|m|h)/g)) {
    ms += Number(n) * { ns: 1e-6, "µs": 1e-3, us: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 }[unit];
  }
  return ms;
};

// LV.Timeline 存著每一筆事件，算出任一時刻的狀態。最多留 50000 筆：再多就丟掉最舊的十分之一，頁面會說。
// LV.Timeline keeps every event and computes the state at any moment. It keeps 50000 at most: past that the oldest
// tenth goes, and the page says so.
LV.Timeline = class {
  constructor(pipeline) {
    this.pipeline = pipeline;
    this.events = [];
    this.checkpoints = [new LV.State(pipeline)];
    this.latest = new LV.State(pipeline);
    this.droppedBefore = 0;
  }

  add(e) {
    if (this.events.length && e.seq <= this.events[this.events.length - 1].seq) return false;
    if (this.events.length >= LV.MAX_EVENTS) this.dropOldest();
    this.events.push(e);
    this.latest.apply(e);
    if (this.events.length % LV.CHECKPOINT_EVERY === 0) this.checkpoints.push(this.latest.clone());
    return true;
  }

  dropOldest() {
    const cut = Math.floor(LV.MAX_EVENTS / 10);
    const base = this.stateAt(cut);
    this.events = this.events.slice(cut);
    this.droppedBefore = this.events[0].seq;
    this.checkpoints = [base];
    let s = base.clone();
    for (let i = 0; i < this.events.length; i++) {
      s.apply(this.events[i]);
      if ((i + 1) % LV.CHECKPOINT_EVERY === 0) this.checkpoints.push(s.clone());
    }
    this.latest = s;
  }

  // stateAt(n) 是套用前 n 筆之後的狀態。 / stateAt(n) is the state after the first n events.
  stateAt(n) {
    if (n >= this.events.length) return this.latest;
    const i = Math.floor(n / LV.CHECKPOINT_EVERY);
    const s = this.checkpoints[i].clone();
    for (let k = i * LV.CHECKPOINT_EVERY; k < n; k++) s.apply(this.events[k]);
    return s;
  }
};
LV.MAX_EVENTS = 50000;
LV.CHECKPOINT_EVERY = 256;

// LV.text 是一筆事件印出來的那一行，跟 Go 的 show.Event.Text 一模一樣（欄寬 8、9、24）。
// LV.text is the line an event prints, exactly as Go's show.Event.Text (columns of 8, 9 and 24).
LV.text = function (e) {
  if (e.note) return "-- " + e.detail;
  const pad = (s, n) => (s || "") + " ".repeat(Math.max(0, n - (s || "").length));
  return (pad(e.source, 8) + " " + pad(e.what, 9) + " " + pad(e.key, 24) + " " + (e.detail || "")).replace(/\s+$/, "");
};

// LV.summary 把一個狀態寫成幾行可以比對的文字：每個階段的事件數、快取、索引、積壓、workqueue。
// 即時的頁面與重播同一份錄製檔，最後的 summary 必須相同。事件數不算 bookmark：API server 照自己的時間表送它，
// 同一個情境跑兩次，bookmark 的數目可能不同。
// LV.summary writes a state as comparable lines: each stage's event count, the cache, the index, the backlogs, the
// workqueue. A live page and a replay of its recording must end with the same summary. The counts leave bookmarks
// out: the API server sends them on its own timer, so two runs of one scene may differ in them.
LV.summary = function (state) {
  const out = [];
  for (const s of state.pipeline.stages) out.push("stage " + s.id + " " + (state.stages[s.id].count - state.stages[s.id].bookmarks));
  for (const k of Object.keys(state.cache).sort()) {
    const d = state.cache[k];
    out.push("cache " + k + " phase=" + d.phase + " node=" + d.node + " labels=" + d.labels + (d.deleting ? " (deleting)" : ""));
  }
  for (const app of Object.keys(state.index || {}).sort()) out.push("index " + app + "=[" + state.index[app].join(" ") + "]");
  for (const name of Object.keys(state.listeners).sort()) out.push("listener " + name + " calls=" + state.listeners[name].calls + " backlog=" + state.listeners[name].backlog);
  out.push("waiting [" + state.waiting().join(" ") + "]");
  if (state.workqueue.merged) out.push("merged " + state.workqueue.merged);
  return out.join("\n") + "\n";
};
