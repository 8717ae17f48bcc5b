// render.js：把一個狀態畫出來。方框依步驟宣告的 rank（欄）與 row（列）排成格子，邊畫在上面一層 SVG；
// 這裡不認得任何一個步驟。所有來自叢集的字串（名稱、標籤、選擇器）都只經過 textContent 或 setAttribute 的值，
// 從不當作 HTML：就算 annotation 是 <img src=x onerror=alert(1)>，畫出來的也只是這串字。
// Draws one state. Boxes sit in a grid by the rank (column) and row each step declared, edges on an SVG layer above
// them; nothing here knows any step. Every string from the cluster (names, labels, selectors) goes only through
// textContent or an attribute's value, never as HTML: an annotation <img src=x onerror=alert(1)> shows those very
// characters.
"use strict";
window.LV = window.LV || {};

// el 建立一個元素：屬性、文字（textContent），以及子元素。屬性的「名字」一律寫在程式碼裡，絕不來自資料。
// el makes an element: attributes, text (textContent), children. Attribute *names* are always written in the code,
// never taken from data.
LV.el = function (tag, attrs, text, children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  }
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const c of children || []) node.appendChild(c);
  return node;
};

const SVG = "http://www.w3.org/2000/svg";
// CHANNEL 是格子下方兩條通道之間的距離：夠放一行標籤，上下兩條的字才不會疊在一起。
// CHANNEL is the distance between two channels below the grid: room for a line of label text, so two labels never
// overlap.
const CHANNEL = 22;
// FIT_FLOOR 是 LV.fit 縮小字體的下限（px）：再小，投影到教室後面就讀不出來了。
// FIT_FLOOR is the smallest font LV.fit shrinks to (px): any smaller and the back of a room cannot read it.
const FIT_FLOOR = 11;
LV.svg = function (tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  return node;
};

// LV.breakable 在識別字的 . 與 / 之後（或 marks 裡的每個字元之後）加上可以換行的地方，長的型別名稱只在那裡斷開，
// 不會斷在字中間。
// LV.breakable adds break opportunities after the dots and slashes of identifiers (or after each character in marks),
// so a long type name wraps only there, never in the middle of a word.
LV.breakable = function (node, text, marks = "./") {
  node.replaceChildren();
  let part = "";
  for (const ch of String(text)) {
    part += ch;
    if (marks.includes(ch)) {
      node.append(part, document.createElement("wbr"));
      part = "";
    }
  }
  if (part) node.append(part);
  return node;
};

const TOKENS_SHOWN = 24;
const TRAIL_SHOWN = 6;

LV.Renderer = class {
  constructor(root, pipeline) {
    this.root = root;
    this.pipeline = pipeline;
    this.selected = "";
    this.filterKey = "";
    this.filterStage = "";
    this.onSelect = () => {};
    this.build();
  }

  // build 只在一開始（與換語言時）建立方框；之後每一格畫面只改裡面的數字與圓標。
  // build makes the boxes once (and on a language change); later frames only change the numbers and tokens in them.
  build() {
    const p = this.pipeline;
    document.title = LV.pick(p.title) + " · live view";
    this.root.querySelector("#title").textContent = LV.pick(p.title);
    this.root.querySelector("#title").title = LV.pick(p.title);
    const variant = this.root.querySelector("#variant");
    variant.textContent = LV.pick(p.variant);
    variant.title = LV.pick(p.variant);
    variant.hidden = !LV.pick(p.variant);
    this.root.querySelector("#chapter").hidden = !p.chapter;
    this.root.querySelector("#chapter-path").textContent = LV.lang === "zh" ? (p.chapter || "").replace("docs/en/", "docs/zh-TW/") : p.chapter || "";
    const grid = this.root.querySelector("#pipeline");
    grid.replaceChildren();
    this.edgeLayer = LV.svg("svg", { id: "edges", "aria-hidden": "true" });
    grid.appendChild(this.edgeLayer);
    const ranks = Math.max(1, ...p.stages.map((s) => s.rank + 1));
    const rows = Math.max(1, ...p.stages.map((s) => s.row + 1));
    grid.style.gridTemplateColumns = "repeat(" + ranks + ", minmax(0, 1fr))";
    grid.style.gridTemplateRows = "repeat(" + rows + ", auto)";
    grid.dataset.ranks = ranks;
    grid.dataset.rows = rows;
    this.boxes = {};
    for (const s of p.stages) {
      const alone = p.stages.filter((o) => o.rank === s.rank).length === 1;
      const box = LV.el("section", {
        class: "stage" + (s.opaque ? " opaque" : "") + (s.lane ? " lane" : ""),
        "data-stage": s.id, "data-rank": s.rank, "data-row": s.row, "data-count": 0,
        "aria-label": LV.pick(s.label), title: LV.pick(s.caption) || "",
      }, null, [
        LV.el("div", { class: "head" }, null, [
          LV.breakable(LV.el("h2", {}), LV.pick(s.label)),
          LV.el("span", { class: "numbers" }, null, [LV.el("span", { class: "count" }, ""), LV.el("span", { class: "extra" }, "")]),
        ]),
        LV.breakable(LV.el("p", { class: "caption" }), LV.pick(s.caption)),
        LV.el("div", { class: "gauge-row" }, null, [LV.gauge(), LV.el("span", { class: "depth" }, "")]),
        LV.el("ol", { class: "requests" }),
        LV.el("div", { class: "tokens" }),
        LV.el("span", { class: "now-badge", hidden: "" }, ""),
      ]);
      box.style.gridColumn = String(s.rank + 1);
      box.style.gridRow = alone ? "1 / span " + rows : String(s.row + 1);
      box.classList.toggle("spans", alone && rows > 1);
      box.querySelector(".gauge-row").hidden = !s.depth;
      grid.appendChild(box);
      this.boxes[s.id] = box;
    }
    this.tokens = {};
    this.edgeNodes = {};
    this.emptyRow = null;
    this.cacheRows = new Map();
    for (const id of ["cache", "index", "listeners", "workqueue"]) {
      this.root.querySelector("#panel-" + id).hidden = !(p.panels || []).includes(id);
    }
    if (this.resize) this.resize.disconnect();
    // 方框的大小一變（視窗、語言、簡報模式、圓標變多），邊就重畫。 / When a box changes size (window, language, presenter mode, more tokens), the edges are drawn again.
    this.resize = new ResizeObserver(() => this.layoutEdges());
    this.resize.observe(grid);
    // 說明列長高（一個問題、一個答案）時也重新判斷放不放得下。 / A caption bar that grows (a question, an answer) decides the fit again too.
    this.resize.observe(document.getElementById("caption"));
    for (const box of Object.values(this.boxes)) this.resize.observe(box);
    this.layoutEdges();
  }

  // layoutEdges 依方框現在的位置畫每一條宣告過的邊：往右相鄰的一欄走直線（或 S 形），其餘（往回、跨過好幾欄、
  // 同一欄）從方框下緣繞到格子下方的通道。
  // layoutEdges draws every declared edge from where the boxes are now: to the next column on the right as a line (or
  // an S), any other (going back, across several columns, within a column) from the box's bottom through a channel
  // below the grid.
  layoutEdges() {
    const grid = this.root.querySelector("#pipeline");
    const layer = this.edgeLayer;
    if (!layer || !grid.isConnected) return;
    const rank = {};
    for (const s of this.pipeline.stages) rank[s.id] = s.rank;
    // 最後一欄裡的同欄邊從方框右側繞過去：格子右邊留出它的位置，才不會畫到畫面外。
    // A same-column edge in the last column curves round the boxes' right side: the grid leaves room for it there, so
    // it is not drawn off the page.
    const lastRank = Math.max(...this.pipeline.stages.map((s) => s.rank));
    const curveRight = (this.pipeline.edges || []).some((e) => rank[e.from] === rank[e.to] && rank[e.from] === lastRank);
    grid.style.paddingRight = curveRight ? "30px" : "";
    const origin = grid.getBoundingClientRect();
    const rect = (id) => {
      const r = this.boxes[id].getBoundingClientRect();
      return { l: r.left - origin.left, r: r.right - origin.left, t: r.top - origin.top, b: r.bottom - origin.top, cx: (r.left + r.right) / 2 - origin.left, cy: (r.top + r.bottom) / 2 - origin.top };
    };
    let bottom = 0;
    for (const id of Object.keys(this.boxes)) bottom = Math.max(bottom, rect(id).b);
    layer.replaceChildren(LV.svg("defs"));
    const defs = layer.firstChild;
    for (const kind of ["flow", "read", "write"]) {
      const marker = LV.svg("marker", { id: "arrow-" + kind, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 11, markerHeight: 11, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" });
      marker.appendChild(LV.svg("path", { d: "M0,0 L10,5 L0,10 z", class: "head " + kind }));
      defs.appendChild(marker);
    }
    this.edgeNodes = {};
    let channel = 0;
    for (const e of this.pipeline.edges || []) {
      if (!this.boxes[e.from] || !this.boxes[e.to]) continue;
      const a = rect(e.from);
      const b = rect(e.to);
      let d;
      let label = null;
      if (rank[e.to] === rank[e.from] + 1) {
        // 相鄰兩欄之間的縫太窄，放不下標籤：它只當作提示（title）。 / The gap between two neighbouring columns is too narrow for a label: it is a tooltip only.
        const x1 = a.r, y1 = a.cy, x2 = b.l, y2 = b.cy, mx = (x1 + x2) / 2;
        d = y1 === y2 ? `M${x1},${y1} L${x2},${y2}` : `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`;
      } else if (rank[e.to] === rank[e.from]) {
        // 同一欄的兩個方框：從右側繞一個弧線過去；標籤只當作提示，才不會壓在旁邊那一欄上。
        // Two boxes in one column: a curve round their right side; the label is a tooltip only, so it never lies on
        // the next column.
        const x1 = a.r, y1 = a.cy, x2 = b.r, y2 = b.cy, bulge = 26;
        d = `M${x1},${y1} C${x1 + bulge},${y1} ${x2 + bulge},${y2} ${x2},${y2}`;
      } else {
        channel++;
        const y = bottom + 10 + channel * CHANNEL;
        const x1 = a.cx + (rank[e.to] < rank[e.from] ? -12 : 12), x2 = b.cx + (rank[e.to] < rank[e.from] ? 12 : -12);
        d = `M${x1},${a.b} L${x1},${y} L${x2},${y} L${x2},${b.b}`;
        label = { x: (x1 + x2) / 2, y: y - 4 };
      }
      const path = LV.svg("path", { d: d, class: "edge " + e.kind, "data-from": e.from, "data-to": e.to, "data-kind": e.kind, "marker-end": "url(#arrow-" + e.kind + ")" });
      if (LV.pick(e.label)) path.appendChild(LV.svg("title")).textContent = LV.pick(e.label);
      layer.appendChild(path);
      let text = null;
      if (LV.pick(e.label) && label) {
        text = LV.svg("text", { x: label.x, y: label.y, class: "edge-label " + e.kind, "text-anchor": "middle" });
        text.textContent = LV.pick(e.label);
        layer.appendChild(text);
      }
      this.edgeNodes[e.from + ">" + e.to] = { path: path, text: text, label: LV.pick(e.label) };
    }
    const height = Math.max(bottom, 0) + (channel ? 18 + channel * CHANNEL : 0);
    layer.setAttribute("width", String(Math.ceil(origin.width)));
    layer.setAttribute("height", String(Math.ceil(height)));
    grid.style.paddingBottom = channel ? 14 + channel * CHANNEL + "px" : "";
    // 只要有一個方框放不下「resourceVersion」加一個七位數，所有方框就都寫 rv（提示裡是全名）：例如一條有七個方框的
    // 管線，在 1024 px 寬的一般模式裡。只在版面改變時量一次，不在每一格畫面裡量。
    // When one box has no room for "resourceVersion" and a seven-digit number, every box says rv (the tooltip has it
    // whole): a pipeline of seven boxes in normal mode at 1024 px wide, say. Measured once per layout, not in every
    // frame.
    this.shortRV = false;
    for (const box of Object.values(this.boxes)) {
      const extra = box.querySelector(".extra");
      const saved = extra.textContent;
      extra.textContent = LV.t("resourceVersion") + " 0000000";
      const over = extra.offsetWidth > box.querySelector(".numbers").clientWidth + 1;
      extra.textContent = saved;
      if (over) {
        this.shortRV = true;
        break;
      }
    }
    if (this.lastState) {
      this.renderStages(this.lastState);
      this.renderEdges(this.lastState);
    }
    for (const box of Object.values(this.boxes)) {
      // 投影與嵌入時名字不換行；名字有好幾個字、又得縮到原本的八成五以下時，寧可在字與字之間換行，字保持原來的大小。
      // On a projector or in an embed a name stays on one line; a name of several words that would have to shrink
      // below 85 % of its size wraps between its words instead, at its own size.
      const h2 = box.querySelector("h2");
      h2.classList.remove("wrap");
      h2.style.fontSize = "";
      const base = parseFloat(getComputedStyle(h2).fontSize);
      LV.fit(h2);
      if (h2.style.fontSize && parseFloat(h2.style.fontSize) < 0.85 * base && /\s/.test(h2.textContent.trim())) {
        h2.classList.add("wrap");
        LV.fit(h2);
      }
      LV.fit(box.querySelector(".caption"));
    }
    // 標題放不下時先縮小（不小於 FIT_FLOOR），還放不下才以省略號結尾；完整的標題在提示裡。
    // A title that does not fit shrinks first (no smaller than FIT_FLOOR), and only then ends in an ellipsis; the
    // whole title is in the tooltip.
    LV.fit(this.root.querySelector("#title"));
    this.tighten(grid, height);
  }

  // tighten：簡報模式裡，只要有一個方框的說明放不下，或整條管線超出視窗底部，所有方框的說明就一起收起來
  // （滑鼠停在方框上還看得到）：投影幕上不會有的方框有說明、有的沒有，管線也不必捲動。視窗、語言或模式一變就重新判斷。
  // tighten: in presenter mode, when one box's caption does not fit, or the pipeline runs past the bottom of the
  // window, every box's caption folds away together (hovering a box still shows it): the screen never shows captions
  // on some boxes and not others, and the pipeline needs no scrolling. A new window size, language or mode decides
  // again.
  tighten(grid, height) {
    const body = document.body;
    const view = [innerWidth, innerHeight, LV.lang, body.classList.contains("presenter")].join(" ");
    if (this.tightView !== view) {
      this.tightView = view;
      if (body.classList.contains("tight")) {
        body.classList.remove("tight");
        return;
      }
    }
    if (!body.classList.contains("presenter") || body.classList.contains("tight")) return;
    const cramped = grid.querySelector(".stage .caption.cramped");
    const end = Math.max(grid.getBoundingClientRect().bottom, grid.getBoundingClientRect().top + height);
    if (cramped || end > innerHeight + 1) body.classList.add("tight");
  }

  // now 是步驟的時間（毫秒）：即時跟著的時候比最後一筆事件晚一點，讓重試的退避倒數下去。
  // now is the step's time (ms): when following live it runs past the last event, so retry backoffs count down.
  render(state, events, cursor, now) {
    this.now = now === undefined ? state.t : now;
    this.lastState = state;
    this.renderStages(state);
    this.renderEdges(state);
    this.renderTokens(state);
    this.renderTrail(state);
    this.renderPanels(state);
    this.renderLog(events, cursor);
    const undrawn = this.root.querySelector("#undrawn");
    undrawn.hidden = !state.undrawn;
    undrawn.dataset.count = state.undrawn;
    undrawn.textContent = LV.t("undrawn") + LV.t("gap") + state.undrawn;
    document.body.dataset.seq = state.seq;
    document.body.dataset.applied = state.applied;
  }

  renderStages(state) {
    const path = this.selected ? (state.paths[this.selected] || []).map((h) => h.stage) : [];
    const from = Math.max(0, path.length - TRAIL_SHOWN);
    for (const s of this.pipeline.stages) {
      const box = this.boxes[s.id];
      const st = state.stages[s.id];
      box.dataset.count = st.count;
      const count = box.querySelector(".count");
      count.textContent = s.opaque && !st.count ? LV.t("opaque") : LV.events(st.count);
      const extra = box.querySelector(".extra");
      const parts = [];
      // 簡報模式、嵌入模式，以及方框太窄時（shortRV），resourceVersion 寫成 rv（提示裡是全名）。
      // In presenter and embed mode, and when the boxes are too narrow (shortRV), resourceVersion shows as rv (the
      // tooltip has it whole).
      const short = this.shortRV || document.body.classList.contains("presenter") || document.body.classList.contains("embed");
      if (st.rv) parts.push((short ? "rv" : LV.t("resourceVersion")) + " " + st.rv);
      if (st.skips) parts.push(LV.t("skippedN").replace("{n}", st.skips));
      extra.textContent = parts.join(" · ");
      extra.title = st.rv ? "resourceVersion " + st.rv : "";
      // 只有宣告了深度的階段才畫深度，不會在沒有深度的地方編出一個。 / Only a stage that declares a depth draws one; none is made up where there is none.
      const depth = s.depth ? st.depth : null;
      box.dataset.depth = depth === null ? "" : depth;
      box.querySelector(".depth").textContent = s.depth ? LV.t("depth") + " " + (depth === null ? "–" : depth) : "";
      LV.setGauge(box.querySelector("svg.gauge"), depth);
      const order = [];
      path.forEach((id, i) => i >= from && id === s.id && order.push(i + 1));
      box.classList.toggle("on-path", order.length > 0);
      // 剛剛發生事件的方框有個外框；跳過（skip）時還寫著「跳過」。 / The box where the latest event happened gets a ring; a skip also says so.
      const now = state.now.stage === s.id;
      box.classList.toggle("now", now);
      box.dataset.now = now ? state.now.op || "note" : "";
      const badge = box.querySelector(".now-badge");
      badge.hidden = !(now && state.now.op === "skip");
      badge.textContent = LV.t("skipped");
      box.dataset.order = order.join(" ");
      const list = box.querySelector(".requests");
      if (s.id === (this.requestStage = this.requestStage || this.stageOfOp("request"))) {
        this.renderRequests(list, state.requests);
      }
    }
  }

  // renderRequests 寫出 API server 方框裡最近的請求：動詞、路徑最後一段與選擇器、狀態碼各一格。只在請求、語言或
  // 版面變了才重寫：寫完要量，一行放不下就換短一點的寫法（先拿掉選擇器，再拿掉整個查詢字串），最短的還太寬才縮小字。
  // renderRequests writes the latest requests in the API server's box: the verb, the path's last segment with the
  // selectors, and the status, each in a cell. It rewrites only when the requests, the language or the layout changed:
  // it measures what it wrote, and where a line does not fit it takes a shorter form (first without the selectors,
  // then without the query), shrinking the text only when the shortest is still too wide.
  renderRequests(list, requests) {
    const sig = requests.map((r) => r.seq).join(",") + " " + list.clientWidth + " " + document.body.className;
    if (list.dataset.sig === sig) return;
    list.dataset.sig = sig;
    list.replaceChildren(
      ...requests.map((r) => {
        const req = r.req;
        const line = LV.request(req);
        const what = LV.el("span", { class: "what" });
        const li = LV.el("li", { "data-seq": r.seq, title: (req.method || "") + " " + (req.path || "") + (req.query ? "?" + req.query : "") }, null, [
          LV.el("span", { class: "verb" }, req.method || ""),
          what,
          LV.el("span", { class: "status" }, "→ " + (req.status || "")),
        ]);
        li.forms = line;
        return li;
      }),
    );
    const fits = (what) => what.scrollHeight <= what.clientHeight + 1 && what.scrollWidth <= what.clientWidth + 1;
    for (const li of list.children) {
      const what = li.querySelector(".what");
      // 先試「…/」跟著下一段的寫法；方框窄到連那樣都放不下時，才讓「…/」自己一行。
      // First the forms with "…/" kept with the next piece; only in a box too narrow even for that may "…/" take a
      // line of its own.
      const tries = [...li.forms.map((f) => [f, true]), ...li.forms.map((f) => [f, false])];
      for (const [form, keepLead] of tries) {
        LV.unbreakable(what, form, "/?&=.", keepLead);
        if (fits(what)) break;
      }
      LV.fit(what);
    }
  }

  // stageOfOp：請求畫在哪個階段，看它自己宣告的來源（request）。 / stageOfOp: which stage requests show in, from its declared sources (request).
  stageOfOp(op) {
    for (const s of this.pipeline.stages) if ((s.sources || []).includes(op)) return s.id;
    return "";
  }

  renderEdges(state) {
    const path = this.selected ? state.paths[this.selected] || [] : [];
    const onPath = new Set();
    for (let i = 1; i < path.length; i++) onPath.add(path[i - 1].stage + ">" + path[i].stage);
    for (const [id, node] of Object.entries(this.edgeNodes)) {
      const edge = state.edges[id] || { count: 0, conflicts: 0, last: 0 };
      node.path.dataset.count = edge.count;
      node.path.classList.toggle("on-path", onPath.has(id));
      node.path.classList.toggle("active", edge.count > 0 && state.seq - edge.last < 3);
      if (node.text) {
        let label = node.label;
        if (edge.count && node.path.dataset.kind !== "flow") label += " ×" + edge.count;
        if (edge.conflicts) label += " (409 ×" + edge.conflicts + ")";
        node.text.textContent = label;
      }
    }
  }

  // renderTokens 把每個 key 的圓標放進它現在所在的階段（處理函式的每條 lane 各有自己的圓標）；移動時用 FLIP 動畫
  // 滑過去（先量舊位置，移過去，再從舊位置動到新位置），讓人看得見它從哪裡來。
  // renderTokens puts each key's token in the stage where it is now (each handler's lane has tokens of its own); a
  // move slides there with a FLIP animation (measure the old position, move the node, animate from the old position
  // to the new), so a person sees where it came from.
  renderTokens(state) {
    const wanted = [];
    for (const [key, tok] of Object.entries(state.tokens)) wanted.push({ id: key, key: key, stage: tok.stage, kind: tok.kind, seq: tok.seq });
    for (const [lane, keys] of Object.entries(state.lanes)) {
      for (const [key, tok] of Object.entries(keys)) wanted.push({ id: lane + "\u0000" + key, key: key, stage: lane, kind: tok.kind, seq: tok.seq, behind: tok.behind });
    }
    wanted.sort((a, b) => a.seq - b.seq);
    const perBox = {};
    const seen = new Set();
    const moves = [];
    for (const w of wanted) {
      if (!this.boxes[w.stage]) continue;
      const list = (perBox[w.stage] = perBox[w.stage] || []);
      list.push(w);
    }
    for (const [stage, list] of Object.entries(perBox)) {
      const shown = list.slice(-TOKENS_SHOWN);
      for (const w of shown) {
        seen.add(w.id);
        let node = this.tokens[w.id];
        if (!node) {
          node = LV.el("button", { class: "token", "data-key": w.key, type: "button" }, null, [LV.el("span", { class: "name" }, w.key.split("/").pop()), LV.el("span", { class: "badge" }, "")]);
          node.addEventListener("click", () => this.onSelect(w.key));
          this.tokens[w.id] = node;
        }
        const cached = state.cache[w.key];
        node.dataset.kind = w.kind;
        node.dataset.stage = stage;
        const retry = state.workqueue.retries[w.key];
        let badge = "";
        if (w.kind === "backoff" && retry) badge = retry.n + "/" + retry.of;
        if (w.kind === "old") badge = "−" + w.behind;
        node.querySelector(".badge").textContent = badge;
        node.classList.toggle("deleting", !!((cached && cached.deleting) || state.deleting[w.key]));
        node.classList.toggle("selected", w.key === this.selected);
        node.title = w.key + " · " + LV.t("kind-" + w.kind) + (cached ? " · " + cached.phase + " " + cached.labels : "");
        const target = this.boxes[stage].querySelector(".tokens");
        if (node.parentNode !== target) {
          const before = node.parentNode ? node.getBoundingClientRect() : null;
          target.appendChild(node);
          if (before) moves.push([node, before]);
        }
      }
      const more = this.boxes[stage].querySelector(".tokens .more") || LV.el("span", { class: "more" });
      more.textContent = list.length > TOKENS_SHOWN ? "+" + (list.length - TOKENS_SHOWN) : "";
      more.hidden = list.length <= TOKENS_SHOWN;
      this.boxes[stage].querySelector(".tokens").appendChild(more);
    }
    for (const [id, node] of Object.entries(this.tokens)) {
      if (!seen.has(id)) {
        node.remove();
        delete this.tokens[id];
      }
    }
    for (const box of Object.values(this.boxes)) {
      if (!perBox[box.dataset.stage]) {
        const more = box.querySelector(".tokens .more");
        if (more) more.hidden = true;
      }
      box.dataset.tokens = (perBox[box.dataset.stage] || []).length;
    }
    const ms = LV.hopMs();
    if (LV.animate && ms > 0) {
      for (const [node, before] of moves) {
        const after = node.getBoundingClientRect();
        node.animate([{ transform: `translate(${before.left - after.left}px, ${before.top - after.top}px)` }, { transform: "none" }], {
          duration: ms,
          easing: "ease-in-out",
        });
      }
    }
  }

  // renderTrail 把選取的 key 走過的路寫成一串有順序的站：1 API server → 2 … ；方框上也標著第幾站。
  // renderTrail writes the selected key's path as an ordered series of stops: 1 API server → 2 …; the boxes carry
  // their stop numbers too.
  renderTrail(state) {
    const trail = this.root.querySelector("#trail");
    const path = this.selected ? state.paths[this.selected] || [] : [];
    trail.hidden = !this.selected;
    if (!this.selected) return;
    const label = (id) => LV.pick((this.pipeline.stages.find((s) => s.id === id) || {}).label) || id;
    const seen = state.seen[this.selected];
    const lanes = Object.keys(state.lanes).filter((l) => state.lanes[l][this.selected]);
    let none = LV.t("noPath");
    if (seen && lanes.length) none = LV.t("inLanes").replace("{n}", seen.n).replace("{lanes}", lanes.map(label).join(LV.t("listSep")));
    else if (seen) none = LV.t("onlyOpaque").replace("{n}", seen.n).replace("{stage}", label(seen.stage));
    const parts = [LV.el("b", {}, this.selected), LV.el("span", {}, path.length ? LV.t("colon") : LV.t("colon") + none)];
    // 只寫最近的 TRAIL_SHOWN 站；更早的說有幾站。 / Only the latest TRAIL_SHOWN stops are written; the earlier ones are counted.
    const from = Math.max(0, path.length - TRAIL_SHOWN);
    if (from) parts.push(LV.el("span", { class: "earlier" }, LV.t("earlierN").replace("{n}", from) + " "));
    path.forEach((h, i) => {
      if (i < from) return;
      if (i > from) parts.push(LV.el("span", { class: "arrow" }, " → "));
      parts.push(LV.el("span", { class: "stop", "data-stage": h.stage, "data-seq": h.seq }, i + 1 + " " + label(h.stage) + (h.via ? LV.t("paren").replace("{n}", LV.t("via") + " " + h.via) : "")));
    });
    trail.replaceChildren(...parts);
    trail.dataset.stops = path.map((h) => h.stage).join(" ");
  }

  renderPanels(state) {
    // 每個 key 一列，重畫時只改變了的格子：一千個 Pod 的爆量裡，每一格畫面不必重建整張表。
    // One row per key, and a redraw only touches the cells that changed: in a burst over a thousand pods no frame
    // rebuilds the whole table.
    const rows = Object.keys(state.cache)
      .sort()
      .map((key) => {
        const d = state.cache[key];
        const cells = [key, d.phase, d.node, d.labels, d.deleting ? LV.t("deletingCell") : ""];
        let tr = this.cacheRows.get(key);
        if (!tr) {
          tr = LV.el("tr", { "data-key": key }, null, cells.map(() => LV.el("td", {})));
          this.cacheRows.set(key, tr);
        }
        cells.forEach((text, i) => {
          if (tr.cells[i].textContent === text) return;
          // 標籤那一欄只在兩個標籤之間（逗號之後）換行。 / The labels column wraps only between two labels (after a comma).
          if (i === 3) LV.breakable(tr.cells[i], text, ",");
          else tr.cells[i].textContent = text;
        });
        tr.classList.toggle("selected", key === this.selected);
        return tr;
      });
    for (const key of this.cacheRows.keys()) if (!(key in state.cache)) this.cacheRows.delete(key);
    const cache = this.root.querySelector("#cache-rows");
    LV.reconcile(cache, rows.length ? rows : [(this.emptyRow = this.emptyRow || LV.el("tr", {}, null, [LV.el("td", { colspan: 5 }, LV.t("empty"))]))]);
    cache.dataset.size = rows.length;
    this.root.querySelector("#cache-size").textContent = rows.length ? LV.t("paren").replace("{n}", rows.length) : "";

    const index = this.root.querySelector("#index-rows");
    const buckets = Object.keys(state.index || {}).sort();
    index.replaceChildren(...(buckets.length ? buckets.map((app) => LV.el("li", { "data-app": app, "data-size": state.index[app].size }, app + " = " + LV.bucket(state.index[app]))) : [LV.el("li", { class: "none" }, LV.t("none"))]));

    const listeners = this.root.querySelector("#listener-rows");
    listeners.replaceChildren(
      ...Object.keys(state.listeners)
        .sort()
        .map((name) => {
          const l = state.listeners[name];
          const svg = LV.gauge();
          LV.setGauge(svg, l.backlog);
          return LV.el("li", { "data-listener": name, "data-backlog": l.backlog }, null, [
            LV.el("span", { class: "name" }, name),
            svg,
            LV.el("span", {}, LV.t("backlog") + " " + l.backlog + " · " + LV.calls(l.calls)),
          ]);
        }),
    );

    const wq = state.workqueue;
    const list = (id, items) => this.root.querySelector(id).replaceChildren(...(items.length ? items : [LV.el("li", { class: "none" }, LV.t("none"))]));
    // 退避中的 key 還不在佇列裡（深度不算它）：它只列在重試底下。 / A key in backoff is not in the queue yet (the depth does not count it): it is listed under retries only.
    list("#wq-waiting", state.waiting().filter((k) => state.tokens[k].kind !== "backoff").map((k) => LV.el("li", { "data-key": k }, k)));
    list("#wq-retries", Object.entries(wq.retries).map(([k, r]) => {
      const left = r.until === null ? "" : " · " + Math.max(0, Math.round(r.until - this.now)) + " ms";
      return LV.el("li", { "data-key": k }, k + " · " + r.n + "/" + r.of + left);
    }));
    list("#wq-workers", Object.keys(wq.workers).sort().map((w) => LV.el("li", { "data-worker": w }, w + LV.t("colon") + LV.opLine(wq.workers[w].op, wq.workers[w].key))));
    list("#wq-dropped", Object.keys(wq.dropped).sort().map((k) => LV.el("li", { "data-key": k }, k)));
    const merged = this.root.querySelector("#wq-merged");
    merged.dataset.merged = wq.merged;
    merged.querySelector("b").textContent = wq.merged;
  }

  // renderLog 列出游標之前、符合篩選的最後 300 筆。 / renderLog lists the last 300 events before the cursor that match the filters.
  renderLog(events, cursor) {
    const list = this.root.querySelector("#log-rows");
    const out = [];
    for (let i = cursor - 1; i >= 0 && out.length < 300; i--) {
      const e = events[i];
      if (e.op === "metric" && this.filterStage !== "metric") continue;
      if (e.quiet && e.op !== "metric" && !this.showQuiet) continue;
      if (this.filterKey && e.key !== this.filterKey && !(e.keys || []).includes(this.filterKey)) continue;
      if (this.filterStage === "metric" && e.op !== "metric") continue;
      if (this.filterStage && this.filterStage !== "metric" && e.stage !== this.filterStage && e.into !== this.filterStage) continue;
      out.push(e);
    }
    out.reverse();
    // 一筆事件的那一列只建一次；往前播放時，只加上新的、拿掉捲出去的。
    // An event's row is built once; playing forward only adds the new rows and drops those scrolled out.
    const before = this.logRows || new Map();
    this.logRows = new Map();
    const rows = out.map((e) => {
      let li = before.get(e.seq);
      if (!li) {
        const known = !e.op || LV.OPS.has(e.op);
        li = LV.el("li", { "data-seq": e.seq, "data-stage": e.stage || "", "data-key": e.key || "", class: (e.note ? "note" : e.quiet ? "quiet" : "") + (known ? "" : " undrawn") }, null, [
          LV.el("span", { class: "seq" }, e.seq),
          LV.el("span", { class: "line" }, LV.text(e)),
        ]);
      }
      this.logRows.set(e.seq, li);
      return li;
    });
    LV.reconcile(list, rows);
    list.scrollTop = list.scrollHeight;
  }
};

// LV.reconcile 讓 parent 的子元素正好是 nodes（同樣的順序），只搬動需要搬的：留下來的元素不動，
// 不要的移除，新的插在該在的位置。nodes 裡已經在 parent 裡的元素，相對順序必須不變。
// LV.reconcile makes parent's children exactly nodes (in that order), moving only what it must: the nodes that stay
// are not touched, the unwanted go, the new ones are inserted where they belong. The nodes already in parent must
// keep their relative order.
LV.reconcile = function (parent, nodes) {
  const wanted = new Set(nodes);
  for (const child of [...parent.children]) if (!wanted.has(child)) child.remove();
  let next = parent.firstElementChild;
  for (const node of nodes) {
    if (node === next) next = next.nextElementSibling;
    else parent.insertBefore(node, next);
  }
};

// gauge 是一根水平的量表（SVG），拉滿整個寬度；長度是深度，旁邊也寫著數字，顏色不是唯一的訊號。
// gauge is a horizontal bar (SVG) across the full width; its length is the depth, and the number is written beside
// it: colour is never the only signal.
LV.gauge = function () {
  const svg = LV.svg("svg", { class: "gauge", viewBox: "0 0 100 8", preserveAspectRatio: "none", "aria-hidden": "true" });
  svg.append(LV.svg("rect", { class: "track", width: 100, height: 8 }), LV.svg("rect", { class: "bar", height: 8, width: 0 }));
  return svg;
};

LV.setGauge = function (svg, value) {
  const v = value === null || value === undefined ? 0 : value;
  // 對數刻度：1 到 1000 都看得出差別。 / A log scale, so 1 and 1000 both show.
  const w = v <= 0 ? 0 : Math.min(100, 15 + 28 * Math.log10(v + 1));
  svg.querySelector(".bar").setAttribute("width", w.toFixed(1));
};

// LV.request 把一個請求寫短：路徑只留最後一段（完整的在提示裡），查詢字串解碼，labelSelector=app=demo 才讀得出來。
// LV.request writes a request short: only the path's last segment (the tooltip has it whole), and the query decoded,
// so labelSelector=app=demo reads as such.
LV.request = function (req) {
  const path = req.path || "";
  const last = "…/" + path.slice(path.lastIndexOf("/") + 1);
  // 選擇器說出這個請求要的是什麼，排在最前面；其餘的參數（watch、timeoutSeconds…）以「…」代表，全文在提示裡。
  // The selectors say what the request asks for, so they come first; the other parameters (watch, timeoutSeconds, …)
  // stand as "…", and the whole is in the tooltip.
  const params = (req.query || "").split("&").filter((p) => p);
  const selectors = params.filter((p) => p.startsWith("labelSelector=") || p.startsWith("fieldSelector="));
  let query = selectors.join("&");
  try {
    query = decodeURIComponent(query.replace(/\+/g, " "));
  } catch (e) {
    // 解不開就照原樣。 / Left as it is when it does not decode.
  }
  const rest = selectors.length < params.length ? "…" : "";
  const forms = [];
  if (query) forms.push(last + "?" + query + (rest ? "&" + rest : ""));
  if (params.length) forms.push(last + "?…");
  forms.push(last);
  // 最後一段本身太長（customresourcedefinitions）時，截短並以「…」結尾。 / A last segment too long by itself (customresourcedefinitions) is cut short, ending in "…".
  for (const n of [20, 16, 12, 8]) if (last.length > n + 1) forms.push(last.slice(0, n) + "…");
  return forms;
};

// LV.unbreakable 把 text 寫進 node，只讓它在 marks 裡的字元之後換行：每一段都不換行（連字號也不行），段與段之間
// 可以換行。
// LV.unbreakable writes text into node so that it may wrap only after a character in marks: each piece stays whole
// (no break at a hyphen either), and a line may break between pieces.
LV.unbreakable = function (node, text, marks, keepLead) {
  node.replaceChildren();
  let part = "";
  const flush = () => {
    if (!part) return;
    node.append(LV.el("span", { class: "piece" }, part), document.createElement("wbr"));
    part = "";
  };
  for (const ch of String(text)) {
    part += ch;
    // keepLead：開頭的「…/」跟著下一段，不會單獨占一行。 / keepLead: a leading "…/" stays with the next piece rather than take a line alone.
    if (marks.includes(ch) && !(keepLead && part === "…/")) flush();
  }
  flush();
  return node;
};

// LV.opLine 寫出 worker 對 key 做了什麼：用語裡有 {key} 就照它的語序，否則動詞在前。
// LV.opLine writes what a worker did to a key: a phrase with {key} sets the word order, otherwise the verb comes first.
LV.opLine = function (op, key) {
  const phrase = LV.t("op-" + op);
  return phrase.includes("{key}") ? phrase.replace("{key}", key) : phrase + " " + key;
};

// LV.fit 在文字放不進它的方框時把字縮小（不小於 FIT_FLOOR），長的識別字就不必斷在字中間。
// LV.fit shrinks a text that does not fit its box (no smaller than FIT_FLOOR), so a long identifier need not break
// inside a word.
LV.fit = function (node) {
  if (!node) return;
  node.style.fontSize = "";
  node.classList.remove("cramped");
  const base = parseFloat(getComputedStyle(node).fontSize);
  const over = () => node.scrollWidth > node.clientWidth + 1;
  for (let f = 0.95; over() && base * f >= FIT_FLOOR; f -= 0.05) node.style.fontSize = (base * f).toFixed(1) + "px";
  // 縮到最小還放不下：方框的說明就不顯示（名字與數字才是方框的重點）；嵌入模式的標題改回可以在空白處斷行。
  // Still too wide at the smallest size: a box's caption is not shown (its name and numbers are what the box is for);
  // an embed's title may wrap at its spaces again.
  if (over()) node.classList.add("cramped");
};

// LV.hopMs 是一次圓標移動的動畫長度：1× 時 450 ms，依播放速度縮放；使用者要求減少動態時是 0。
// LV.hopMs is how long a token's hop animates: 450 ms at 1×, scaled by the playback speed; 0 when the user asked for
// reduced motion.
LV.hopMs = function () {
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return 0;
  return Math.round(450 / (LV.speed || 1));
};
