// state.js：頁面的狀態只從事件串算出來：第 n 筆時的畫面，就是把前 n 筆事件一筆一筆套用上去的結果。
// 它只讀事件的型別化欄位（op、stage、into、from、keys、obj、cache、retry…，見 internal/show/fields.go），
// 從不讀一行文字；它也不認得任何一個步驟：階段與邊都是步驟自己宣告的。
// 即時與重播用的是同一段程式碼；每 256 筆存一個檢查點，拉動時間軸時從最近的檢查點往後算，所以很快。
// The page's state comes from the event stream alone: the picture at event n is what applying the first n events,
// one by one, gives. It reads only an event's typed fields (op, stage, into, from, keys, obj, cache, retry…; see
// internal/show/fields.go), never the text of a line, and it knows no step: stages and edges are what the step
// declared. Live and replay run the same code; a checkpoint every 256 events makes the slider quick.
"use strict";
window.LV = window.LV || {};

// LV.OPS 是頁面認得的每一種 op（internal/show 的 Op）。不認得的照樣列在事件清單裡，並算進「畫不出來」的那一行。
// LV.OPS is every op the page knows (internal/show's Op). One it does not know is still listed in the log and
// counted as "not drawn".
LV.OPS = new Set([
  "request", "metric", "list", "listed", "watch", "bookmark", "rewatch", "relist", "push", "pop", "store", "process",
  "handle", "skip", "add", "merge", "get", "sync", "write", "conflict", "fail", "drop", "done", "read", "index", "resync",
]);
// 這些 op 把一個 key 的圓標移到事件的階段。 / These ops move a key's token to the event's stage.
const MOVES = new Set(["list", "watch", "push", "store", "process", "handle", "read", "resync"]);
const TOKEN_LIMIT = 200;
const PATH_LIMIT = 32;

// isKey：物件的 key 是 namespace/name；請求的路徑、metric 的名字、「1 pod」都不是。
// isKey: an object's key is namespace/name; a request path, a metric name or "1 pod" is not.
LV.isKey = function (k) {
  if (typeof k !== "string" || k.includes(" ")) return false;
  const i = k.indexOf("/");
  return i > 0 && i === k.lastIndexOf("/") && i < k.length - 1;
};

LV.State = class {
  constructor(pipeline) {
    this.pipeline = pipeline;
    this.byId = {};
    for (const s of pipeline.stages) this.byId[s.id] = s;
    this.seq = 0;
    this.t = 0;
    this.applied = 0;
    this.stages = {};
    for (const s of pipeline.stages) this.stages[s.id] = { count: 0, bookmarks: 0, skips: 0, depth: null, rv: "" };
    this.edges = {};
    for (const e of pipeline.edges || []) this.edges[e.from + ">" + e.to] = { count: 0, conflicts: 0, last: 0 };
    this.tokens = {}; // key -> {stage, seq, kind}
    this.lanes = {}; // lane stage id -> key -> {seq, kind, behind}
    this.paths = {}; // key -> [{stage, seq}], in order, consecutive repeats folded
    this.seen = {}; // key -> {n, stage}: events about the key, and the stage of the latest
    this.deleting = {}; // key -> true while the latest event about it saw deletionTimestamp set
    this.cache = {}; // key -> {phase, node, labels, deleting}
    this.replacing = null; // keys of a Store.Replace in progress
    this.index = null; // value -> [keys]
    this.listeners = {}; // handler -> {calls, backlog}
    this.workqueue = { retries: {}, workers: {}, merged: 0, dropped: {} };
    this.metrics = {};
    this.requests = []; // the last few requests
    this.note = ""; // the latest narration line
    this.noteSeq = 0;
    this.undrawn = 0; // events with an op this page does not know
    this.now = { stage: "", op: "" }; // where the latest event happened, and what it was
  }

  apply(e) {
    this.seq = e.seq;
    this.t = e.t;
    this.applied++;
    if (e.note) {
      this.note = e.detail || "";
      this.noteSeq = e.seq;
    } else if (!e.quiet && e.op !== "metric") {
      // 步驟最近印出的一行事件（說明列底下照原樣顯示：數字與 generation 都在裡面）。
      // The latest event line the step printed (shown as it is under the caption: the counts and generations are in it).
      this.said = e;
    }
    // 包括說明行在內，步驟最近印出的一行：解說的一站蓋住了說明列時，» 那一行顯示它。
    // The latest line the step printed, narration included: when a tour stop covers the caption bar, the » line shows it.
    if (!e.quiet && e.op !== "metric") this.saidAny = e;
    const op = e.op || "";
    if (op && !LV.OPS.has(op)) {
      this.undrawn++;
      return;
    }
    if (op === "metric") return this.applyMetric(e);
    const stage = e.stage && this.stages[e.stage] ? e.stage : "";
    // 每個 key 有幾筆事件、最近一筆在哪個階段：只出現在畫不出圓標的方框裡的 key，路徑說得出它在哪裡。
    // How many events each key has, and the stage of the latest: a key seen only in boxes that draw no tokens still
    // gets a trail that says where it was.
    if (stage && LV.isKey(e.key)) {
      const seen = (this.seen[e.key] = this.seen[e.key] || { n: 0, stage: "" });
      seen.n++;
      seen.stage = stage;
    }
    // 正在刪除（設了 deletionTimestamp）：從事件本身的物件狀態來，沒有快取面板的步驟也畫得出虛線框。
    // Being deleted (deletionTimestamp set): taken from the event's own object state, so steps with no cache panel
    // draw the dashed outline too.
    if (LV.isKey(e.key) && e.obj) {
      if (e.obj.deleting) this.deleting[e.key] = true;
      else delete this.deleting[e.key];
    }
    if (stage) {
      const st = this.stages[stage];
      // 最近一筆事件發生在哪裡（請求除外：它們畫在 API server 那一格的清單裡）：連看不進去的方框也標得出來。
      // Where the latest event happened (requests aside: they show in the API server's list): even a box you cannot
      // see into is marked.
      if (op !== "request") this.now = { stage: stage, op: op };
      // Get 與 Done 是 worker 的簿記：圓標的移動畫出它們，方框不把它們算成事件；沒有 op 的說明行也不算。
      // Get and Done are a worker's bookkeeping: the token's moves show them, and the box does not count them as
      // events; nor a narration line without an op.
      if (op ? op !== "get" && op !== "done" : !e.note) st.count++;
      if (op === "bookmark") st.bookmarks++;
      if (op === "skip") st.skips++;
      const rv = e.rv || (e.obj && e.obj.rv);
      if (rv) st.rv = rv;
    }
    if (op === "request") {
      this.requests.push({ seq: e.seq, req: e.req || {} });
      if (this.requests.length > 4) this.requests.shift();
      return;
    }
    // 一次 bookmark 只是新的 resourceVersion：不算進邊，因為 API server 照自己的時間表送它。
    // A bookmark is only a newer resourceVersion: edges leave it out, since the API server sends it on its own timer.
    if (op !== "bookmark") {
      if (e.from && stage) this.touchEdge(e.from, stage, op);
      // 替另一個階段做的讀取（處理函式讀 Indexer 的索引）：那條讀取的邊算一次。 / A read made for another stage (a handler reading the Indexer's index): that read edge counts once.
      if (e.for && stage && this.stages[e.for]) this.touchEdge(stage, e.for, op);
      // 寫到別的階段（沒有帶著 key 移動）：那條邊與那個階段各算一次；帶著 key 的，在圓標移過去時算。
      // A write to another stage (moving no key): that edge and that stage count once; one carrying keys counts as
      // the tokens move.
      if (e.into && stage && e.into !== stage && this.stages[e.into]) {
        this.stages[e.into].count++;
        const rv = e.rv || (e.obj && e.obj.rv);
        if (rv) this.stages[e.into].rv = rv;
        if (!(e.keys && e.keys.length)) this.touchEdge(stage, e.into, op);
      }
    }
    this.applyCache(e);
    if (e.index) this.applyIndex(e.index, e.indexSize || {});
    this.applyListener(e, stage);
    this.applyTokens(e, op, stage);
  }

  // applyIndex 換上這次碰到的桶子；空的桶子離開索引。大的桶子只帶著前幾個 key 與它的大小。
  // applyIndex puts in the buckets this event touched; an empty one leaves the index. A big bucket carries only its
  // first few keys and its size.
  applyIndex(buckets, sizes) {
    this.index = this.index || {};
    for (const [value, keys] of Object.entries(buckets)) {
      const list = keys || [];
      const size = typeof sizes[value] === "number" ? sizes[value] : list.length;
      if (size === 0) delete this.index[value];
      else this.index[value] = { keys: list, size: size };
    }
  }

  touchEdge(from, to, op) {
    const edge = this.edges[from + ">" + to];
    if (!edge) return;
    edge.count++;
    edge.last = this.seq;
    if (op === "conflict") edge.conflicts++;
  }

  applyMetric(e) {
    const value = typeof e.value === "number" ? e.value : 0;
    this.metrics[e.what + "/" + e.key] = value;
    for (const s of this.pipeline.stages) {
      // depthOf 指定 metric 屬於哪個資源（一個步驟有兩個 informer 時）。 / depthOf names the metric's resource (a step with two informers).
      if (s.depth && s.depth === e.what && (!s.depthOf || (e.key || "").endsWith("/" + s.depthOf))) this.stages[s.id].depth = value;
    }
  }

  applyCache(e) {
    const key = e.key;
    switch (e.cache) {
      case "set":
        if (LV.isKey(key)) this.cache[key] = LV.shown(e.obj);
        break;
      case "delete":
        delete this.cache[key];
        break;
      case "replace":
        if (LV.isKey(key)) this.cache[key] = LV.shown(e.obj);
        (this.replacing = this.replacing || new Set()).add(key);
        break;
      case "replaced": {
        // 一次 Replace 結束：沒在清單裡的離開快取（空的清單沒有任何一行，就是什麼都不留）。
        // A Replace ended: what was not in its list leaves the cache (an empty list printed no line: nothing stays).
        const kept = this.replacing || new Set();
        for (const k of Object.keys(this.cache)) if (!kept.has(k)) delete this.cache[k];
        this.replacing = null;
        break;
      }
    }
  }

  applyListener(e, stage) {
    if (!stage || !this.byId[stage].lane || (e.op !== "handle" && e.op !== "skip")) return;
    const l = (this.listeners[e.source] = this.listeners[e.source] || { calls: 0, backlog: 0 });
    l.calls++;
    l.backlog = typeof e.behind === "number" ? e.behind : 0;
  }

  // applyTokens 決定每個 key 的圓標現在在哪裡：圓標只畫在步驟真的看到它的位置。
  // applyTokens decides where each key's token is now: a token only sits where the step really saw the key.
  applyTokens(e, op, stage) {
    const wq = this.workqueue;
    if (e.keys && e.keys.length) {
      for (const key of e.keys) {
        if (!LV.isKey(key)) continue;
        if (e.into && this.stages[e.into]) {
          // 放進佇列：從這個階段，沿著邊，到 into。 / Queued: from this stage, along the edge, into into.
          // 已經在那裡等的 key 再被放進去，也是合併（例如 tally 的變化與 Pod 的變化在 worker 取走之前，先後把同一個 tally 放進佇列）。
          // A key put where it already waits merges too (a tally's change and a pod's change queueing the same tally before a worker takes it, say).
          const t = this.tokens[key];
          const merged = op === "merge" || (t && t.stage === e.into && (t.kind === "waiting" || t.kind === "merged"));
          if (key === e.key) {
            this.hop(key, stage);
            this.place(key, e.into, merged ? "merged" : "waiting");
          } else {
            // 因為另一個 key 而被放進去（例如 Pod 的變化讓 tally 排隊）：這個 key 本身沒去過 stage，
            // 它的路徑直接多一站 into，記著是誰帶它來的。
            // Put there because of another key (a pod's change queueing a tally, say): this key itself never was at
            // stage; its path gains into directly, noting which key brought it.
            this.touchEdge(stage, e.into, op);
            this.place(key, e.into, merged ? "merged" : "waiting", e.key);
          }
          delete wq.dropped[key];
          if (merged) wq.merged++;
        } else if (stage) {
          this.place(key, stage, "object");
        }
      }
      return;
    }
    const key = e.key;
    if (!LV.isKey(key)) return;
    const worker = stage && e.source ? e.source : "";
    if (stage && this.byId[stage].lane) {
      const lane = (this.lanes[stage] = this.lanes[stage] || {});
      const behind = typeof e.behind === "number" ? e.behind : 0;
      lane[key] = { seq: this.seq, kind: e.obj && e.obj.gone ? "gone" : behind > 0 ? "old" : "object", behind: behind };
      // lane 是旁支：算它的邊，但不把它記進 key 的路徑（路徑只走主線）。
      // A lane is a branch: count its edge, but keep it off the key's path (the path follows the main line).
      const path = this.paths[key] || [];
      if (path.length) this.touchEdge(path[path.length - 1].stage, stage, "hop");
      return;
    }
    switch (op) {
      case "get":
        delete wq.retries[key];
        this.place(key, stage, "working");
        wq.workers[worker] = { key: key, op: op };
        return;
      case "sync":
      case "write":
      case "conflict":
        if (worker) wq.workers[worker] = { key: key, op: op };
        if (!this.tokens[key] || this.tokens[key].stage !== stage) this.place(key, stage, "working");
        return;
      case "fail": {
        const r = e.retry || {};
        wq.retries[key] = { n: r.n || 0, of: r.of || 0, until: r.delayMs ? this.t + r.delayMs : null, back: this.queueOf(key) };
        if (worker) wq.workers[worker] = { key: key, op: op };
        this.place(key, stage, "failed");
        return;
      }
      case "drop":
        delete wq.retries[key];
        wq.dropped[key] = this.seq;
        if (worker) wq.workers[worker] = { key: key, op: op };
        this.place(key, stage, "dropped");
        return;
      case "done": {
        // Done 之後：等著重試的 key 回到它排隊的地方等退避；丟掉的留在原地標成丟掉；其餘的離開。
        // After Done: a key waiting for its retry goes back where it queued, to wait out its backoff; a dropped one
        // stays, marked dropped; any other leaves.
        const retry = wq.retries[key];
        if (retry && retry.back) this.place(key, retry.back, "backoff");
        else if (!wq.dropped[key] && this.tokens[key] && this.tokens[key].stage === stage) this.leave(key);
        return;
      }
      case "skip":
        if (stage && !this.byId[stage].opaque) this.place(key, stage, "skipped");
        return;
    }
    if (MOVES.has(op) && stage && !this.byId[stage].opaque) {
      this.place(key, stage, e.obj && e.obj.gone ? "gone" : "object");
    }
  }

  // queueOf 是這個 key 最後一次被放進去的階段（重試時回到那裡）。 / queueOf is the stage the key last went into (a retry goes back there).
  queueOf(key) {
    const path = this.paths[key] || [];
    for (let i = path.length - 1; i >= 0; i--) if (path[i].queued) return path[i].stage;
    return "";
  }

  // hop 把一站記進 key 的路徑（via 是讓它進來的另一個 key，例如 tally 因為哪個 Pod 被放進佇列），
  // 並替沿途宣告過的邊算一次。
  // hop records a stop on the key's path (via is the other key that brought it there, such as the pod that got a
  // tally queued), and counts the declared edge it travelled along.
  hop(key, stage, via) {
    if (!stage) return;
    const path = (this.paths[key] = this.paths[key] || []);
    const last = path[path.length - 1];
    if (last && last.stage === stage) return;
    if (last) this.touchEdge(last.stage, stage, "hop");
    const stop = { stage: stage, seq: this.seq };
    if (via) stop.via = via;
    path.push(stop);
    if (path.length > PATH_LIMIT) path.shift();
  }

  place(key, stage, kind, via) {
    if (!stage || !this.byId[stage] || this.byId[stage].opaque) return;
    this.hop(key, stage, via);
    if (kind === "waiting" || kind === "merged") this.paths[key][this.paths[key].length - 1].queued = true;
    if (!this.tokens[key] && Object.keys(this.tokens).length >= TOKEN_LIMIT) {
      // 太多時丟掉最久沒動的那一個。 / Too many: the one unmoved the longest goes.
      let oldest = "";
      for (const [k, t] of Object.entries(this.tokens)) if (!oldest || t.seq < this.tokens[oldest].seq) oldest = k;
      delete this.tokens[oldest];
    }
    this.tokens[key] = { stage: stage, seq: this.seq, kind: kind };
  }

  leave(key) {
    delete this.tokens[key];
  }

  // waiting 是在佇列裡等著的 key（包括等退避結束的）。 / waiting lists the keys waiting in a queue (those waiting out a backoff too).
  waiting() {
    const out = [];
    for (const [key, tok] of Object.entries(this.tokens)) {
      if (tok.kind === "waiting" || tok.kind === "merged" || tok.kind === "backoff") out.push(key);
    }
    return out.sort();
  }

  // clone 複製整個狀態（給檢查點用）；管線的宣告是共用的，不複製。
  // clone copies the whole state (for checkpoints); the pipeline's declaration is shared, not copied.
  clone() {
    const { pipeline, byId, ...rest } = this;
    const c = Object.assign(Object.create(LV.State.prototype), structuredClone(rest));
    c.pipeline = pipeline;
    c.byId = byId;
    return c;
  }
};

// LV.shown 是快取表格裡的一列：物件的樣子，不含會一直變的 resourceVersion。
// LV.shown is a row of the cache table: the object as it is, without the resourceVersion that keeps changing.
LV.shown = function (obj) {
  const o = obj || {};
  return { phase: o.phase || "", node: o.node || "", labels: o.labels || "", deleting: !!o.deleting };
};

// LV.Timeline 存著每一筆事件，算出任一時刻的狀態。即時的頁面最多留 max 筆：再多就丟掉最舊的十分之一，頁面會說；
// 錄製檔（max 為 0）一筆都不丟。
// LV.Timeline keeps every event and computes the state at any moment. A live page keeps max at most: past that the
// oldest tenth goes, and the page says so; a recording (max 0) drops nothing.
// 檢查點的間隔隨著事件變多而拉長（至少 CHECKPOINT_EVERY 筆，最多約為全部的四十分之一）：檢查點的數目大約跟
// 事件數的對數成正比，拉動滑桿時最多要重算一個間隔。
// Checkpoints grow further apart as events pile up (at least CHECKPOINT_EVERY, at most about a fortieth of all):
// their number grows about with the log of the events, and moving the slider recomputes at most one gap.
LV.Timeline = class {
  constructor(pipeline, max) {
    this.pipeline = pipeline;
    this.max = max === undefined ? LV.MAX_EVENTS : max;
    this.events = [];
    this.checkpoints = [{ at: 0, state: new LV.State(pipeline) }];
    this.latest = new LV.State(pipeline);
    this.droppedBefore = 0;
  }

  add(e) {
    if (this.events.length && e.seq <= this.events[this.events.length - 1].seq) return false;
    if (this.max && this.events.length >= this.max) this.dropOldest();
    this.events.push(e);
    this.latest.apply(e);
    this.checkpoint(this.latest);
    return true;
  }

  checkpoint(state) {
    const n = this.events.length;
    if (n - this.checkpoints[this.checkpoints.length - 1].at >= Math.max(LV.CHECKPOINT_EVERY, Math.floor(n / 40))) {
      this.checkpoints.push({ at: n, state: state.clone() });
    }
  }

  dropOldest() {
    const cut = Math.floor(this.max / 10);
    const base = this.stateAt(cut);
    const rest = this.events.slice(cut);
    this.droppedBefore = rest[0].seq;
    this.events = [];
    this.checkpoints = [{ at: 0, state: base }];
    const s = base.clone();
    for (const e of rest) {
      this.events.push(e);
      s.apply(e);
      this.checkpoint(s);
    }
    this.latest = s;
  }

  // stateAt(n) 是套用前 n 筆之後的狀態：從 n 之前最近的檢查點往後算。 / stateAt(n) is the state after the first n events: from the nearest checkpoint before n on.
  stateAt(n) {
    if (n >= this.events.length) return this.latest;
    let lo = 0, hi = this.checkpoints.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.checkpoints[mid].at <= n) lo = mid;
      else hi = mid - 1;
    }
    const cp = this.checkpoints[lo];
    const s = cp.state.clone();
    for (let k = cp.at; k < n; k++) s.apply(this.events[k]);
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

// LV.bucket 寫出一個索引桶子：[a b]，或大的桶子 [2000: a b c …]。 / LV.bucket writes an index bucket: [a b], or for a big one [2000: a b c …].
LV.bucket = function (b) {
  return "[" + (b.size > b.keys.length ? b.size + ": " + b.keys.join(" ") + " …" : b.keys.join(" ")) + "]";
};

// LV.summary 把一個狀態寫成幾行可以比對的文字：每個階段的事件數與深度、每條邊、快取、索引、積壓、每個圓標在哪裡、
// workqueue。即時的頁面與重播同一份錄製檔，最後的 summary 必須相同。事件數不算 bookmark：API server 照自己的
// 時間表送它，同一個情境跑兩次，bookmark 的數目可能不同。
// LV.summary writes a state as comparable lines: each stage's event count and depth, each edge, the cache, the
// index, the backlogs, where each token is, the workqueue. A live page and a replay of its recording must end with
// the same summary. The counts leave bookmarks out: the API server sends them on its own timer, so two runs of one
// scene may differ in them.
LV.summary = function (state) {
  const out = [];
  for (const s of state.pipeline.stages) {
    const st = state.stages[s.id];
    let line = "stage " + s.id + " " + (st.count - st.bookmarks);
    if (st.skips) line += " skipped=" + st.skips;
    if (s.depth) line += " depth=" + (st.depth === null ? "-" : st.depth);
    out.push(line);
  }
  for (const e of state.pipeline.edges || []) {
    const edge = state.edges[e.from + ">" + e.to];
    if (edge.count) out.push("edge " + e.from + ">" + e.to + " " + edge.count + (edge.conflicts ? " conflicts=" + edge.conflicts : ""));
  }
  for (const k of Object.keys(state.cache).sort()) {
    const d = state.cache[k];
    out.push("cache " + k + " phase=" + d.phase + " node=" + d.node + " labels=" + d.labels + (d.deleting ? " (deleting)" : ""));
  }
  for (const app of Object.keys(state.index || {}).sort()) out.push("index " + app + "=" + LV.bucket(state.index[app]));
  for (const name of Object.keys(state.listeners).sort()) out.push("listener " + name + " calls=" + state.listeners[name].calls + " backlog=" + state.listeners[name].backlog);
  for (const k of Object.keys(state.tokens).sort()) out.push("token " + k + " " + state.tokens[k].stage + " " + state.tokens[k].kind);
  for (const lane of Object.keys(state.lanes).sort()) {
    for (const k of Object.keys(state.lanes[lane]).sort()) out.push("lane " + lane + " " + k + " " + state.lanes[lane][k].kind);
  }
  out.push("waiting [" + state.waiting().join(" ") + "]");
  const retries = Object.keys(state.workqueue.retries).sort();
  if (retries.length) out.push("retries [" + retries.join(" ") + "]");
  const dropped = Object.keys(state.workqueue.dropped).sort();
  if (dropped.length) out.push("dropped [" + dropped.join(" ") + "]");
  if (state.workqueue.merged) out.push("merged " + state.workqueue.merged);
  if (state.undrawn) out.push("not drawn " + state.undrawn);
  return out.join("\n") + "\n";
};
