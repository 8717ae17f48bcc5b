// render.js：把一個狀態畫出來。所有來自叢集的字串（名稱、標籤、annotation）都只經過 textContent，
// 從不當作 HTML：就算 Pod 的 annotation 是 <img src=x onerror=alert(1)>，畫出來的也只是這串字。
// Draws one state. Every string from the cluster (names, labels, annotations) goes through textContent only, never
// as HTML: a pod annotated <img src=x onerror=alert(1)> shows those very characters.
"use strict";
window.LV = window.LV || {};

// el 建立一個元素：屬性、文字（textContent），以及子元素。 / el makes an element: attributes, text (textContent), children.
LV.el = function (tag, attrs, text, children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  }
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const c of children || []) node.appendChild(c);
  return node;
};

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

  // build 只在一開始（與換語言時）建立方框；之後每一格畫面只改裡面的數字與標記。
  // build makes the boxes once (and on a language change); later frames only change the numbers and tokens in them.
  build() {
    const p = this.pipeline;
    document.title = LV.pick(p.title) + " · live view";
    this.root.querySelector("#title").textContent = LV.pick(p.title);
    this.root.querySelector("#chapter").hidden = !p.chapter;
    this.root.querySelector("#chapter-path").textContent = LV.lang === "zh" ? (p.chapter || "").replace(/^docs\/en\//, "docs/zh-TW/") : p.chapter || "";
    const row = this.root.querySelector("#pipeline");
    row.replaceChildren();
    this.boxes = {};
    p.stages.forEach((s, i) => {
      if (i > 0) row.appendChild(LV.el("div", { class: "arrow", "aria-hidden": "true" }, "→"));
      const box = LV.el("section", { class: "stage" + (s.opaque ? " opaque" : ""), "data-stage": s.id, "data-count": 0 }, null, [
        LV.el("h2", {}, LV.pick(s.label)),
        LV.el("p", { class: "caption" }, LV.pick(s.caption)),
        LV.el("div", { class: "numbers" }, null, [
          LV.el("span", { class: "count" }, ""),
          LV.el("span", { class: "depth" }, ""),
        ]),
        LV.gauge(),
        LV.el("div", { class: "tokens" }),
      ]);
      row.appendChild(box);
      this.boxes[s.id] = box;
    });
    this.tokens = {};
    this.emptyRow = null;
    for (const id of ["cache", "index", "listeners", "workqueue"]) {
      this.root.querySelector("#panel-" + id).hidden = !(p.panels || []).includes(id);
    }
  }

  // now 是步驟的時間（毫秒）：即時跟著的時候比最後一筆事件晚一點，讓重試的退避倒數下去。
  // now is the step's time (ms): when following live it runs past the last event, so retry backoffs count down.
  render(state, events, cursor, now) {
    this.now = now === undefined ? state.t : now;
    this.renderStages(state);
    this.renderTokens(state);
    this.renderPanels(state);
    this.renderLog(events, cursor);
    document.body.dataset.seq = state.seq;
    document.body.dataset.applied = state.applied;
  }

  renderStages(state) {
    const path = this.selected ? state.paths[this.selected] || [] : [];
    for (const s of this.pipeline.stages) {
      const box = this.boxes[s.id];
      const st = state.stages[s.id];
      box.dataset.count = st.count;
      // 看不見內部的階段沒有事件可數，只有深度。 / A stage whose inside is not visible has no events to count, only its depth.
      // 沒有來源的階段只靠標記點亮；從沒點亮過就不寫「0 筆事件」（步驟 05 --controller 的 workqueue 只有深度）。
      // A stage with no sources is lit by tokens only; never lit, it does not say "0 events" (step 05 --controller's
      // workqueue has only its depth).
      const unlit = !(s.sources || []).length && st.count === 0;
      box.querySelector(".count").textContent = s.opaque ? LV.t("opaque") : unlit ? "" : LV.events(st.count);
      let depth = st.depth;
      if (s.id === "workqueue" && depth === null) depth = state.waiting().length;
      if (s.id === "listeners") depth = Object.values(state.listeners).reduce((n, l) => n + l.backlog, 0);
      box.dataset.depth = depth === null ? "" : depth;
      box.querySelector(".depth").textContent = depth === null ? "" : LV.t("depth") + " " + depth;
      const gauge = box.querySelector("svg.gauge");
      gauge.style.visibility = depth === null ? "hidden" : "visible";
      LV.setGauge(gauge, depth);
      box.classList.toggle("on-path", path.includes(s.id));
      if ((s.id === "watch" || s.id === "store" || s.id === "push") && state.rv) {
        const d = box.querySelector(".depth");
        d.textContent = (d.textContent ? d.textContent + " · " : "") + LV.t("resourceVersion") + " " + state.rv;
      }
    }
  }

  // renderTokens 把每個 key 的標記放進它最後出現的階段；移動時用 FLIP 動畫滑過去（先量舊位置，移過去，再從舊位置動到新位置）。
  // renderTokens puts each key's token in the stage it last showed in; a move slides there with a FLIP animation
  // (measure the old position, move the node, animate from the old position to the new).
  renderTokens(state) {
    const seen = new Set();
    const moves = [];
    for (const [key, tok] of Object.entries(state.tokens)) {
      seen.add(key);
      let node = this.tokens[key];
      if (!node) {
        node = LV.el("button", { class: "token", "data-key": key, type: "button" }, key.split("/").pop());
        node.addEventListener("click", () => this.onSelect(key));
        this.tokens[key] = node;
      }
      const cached = state.cache[key];
      node.dataset.kind = tok.kind;
      node.dataset.stage = tok.stage;
      node.classList.toggle("deleting", !!(cached && cached.deleting));
      node.classList.toggle("selected", key === this.selected);
      node.title = key + (cached ? " " + cached.phase + " " + cached.labels : "");
      const target = this.boxes[tok.stage].querySelector(".tokens");
      if (node.parentNode !== target) {
        const before = node.parentNode ? node.getBoundingClientRect() : null;
        target.appendChild(node);
        if (before) moves.push([node, before]);
      }
    }
    for (const [key, node] of Object.entries(this.tokens)) {
      if (!seen.has(key)) {
        node.remove();
        delete this.tokens[key];
      }
    }
    if (LV.animate) {
      for (const [node, before] of moves) {
        const after = node.getBoundingClientRect();
        node.animate([{ transform: `translate(${before.left - after.left}px, ${before.top - after.top}px)` }, { transform: "none" }], {
          duration: 350,
          easing: "ease-out",
        });
      }
    }
  }

  renderPanels(state) {
    // 每個 key 一列，重畫時只改變了的格子：一千個 Pod 的爆量裡，每一格畫面不必重建整張表。
    // One row per key, and a redraw only touches the cells that changed: in a burst over a thousand pods no frame
    // rebuilds the whole table.
    this.cacheRows = this.cacheRows || new Map();
    const rows = Object.keys(state.cache)
      .sort()
      .map((key) => {
        const d = state.cache[key];
        const cells = [key, d.phase, d.node, d.labels, d.deleting ? "(deleting)" : ""];
        let tr = this.cacheRows.get(key);
        if (!tr) {
          tr = LV.el("tr", { "data-key": key }, null, cells.map(() => LV.el("td", {})));
          this.cacheRows.set(key, tr);
        }
        cells.forEach((text, i) => {
          if (tr.cells[i].textContent !== text) tr.cells[i].textContent = text;
        });
        tr.classList.toggle("selected", key === this.selected);
        return tr;
      });
    for (const key of this.cacheRows.keys()) if (!(key in state.cache)) this.cacheRows.delete(key);
    const cache = this.root.querySelector("#cache-rows");
    LV.reconcile(cache, rows.length ? rows : [(this.emptyRow = this.emptyRow || LV.el("tr", {}, null, [LV.el("td", { colspan: 5 }, LV.t("empty"))]))]);
    cache.dataset.size = rows.length;

    const index = this.root.querySelector("#index-rows");
    const buckets = Object.keys(state.index || {}).sort();
    index.replaceChildren(...buckets.map((app) => LV.el("li", { "data-app": app }, app + " = [" + state.index[app].join(" ") + "]")));

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
            LV.el("span", {}, l.backlog + " · " + LV.events(l.calls)),
          ]);
        }),
    );

    const wq = state.workqueue;
    const waiting = state.waiting();
    this.root.querySelector("#wq-waiting").replaceChildren(...waiting.map((k) => LV.el("li", { "data-key": k }, k)));
    this.root.querySelector("#wq-retries").replaceChildren(
      ...Object.entries(wq.retries).map(([k, r]) => {
        const left = r.until === null ? "" : " · " + Math.max(0, Math.round(r.until - this.now)) + " ms";
        return LV.el("li", { "data-key": k }, k + " · " + r.n + "/" + r.of + left);
      }),
    );
    const merged = this.root.querySelector("#wq-merged");
    merged.dataset.merged = wq.merged;
    merged.querySelector("b").textContent = wq.merged;
    this.root.querySelector("#wq-workers").replaceChildren(
      ...Object.keys(wq.workers)
        .sort()
        .map((w) => LV.el("li", { "data-worker": w }, w + ": " + wq.workers[w].what + " " + wq.workers[w].key)),
    );
  }

  // renderLog 列出游標之前、符合篩選的最後 300 筆。 / renderLog lists the last 300 events before the cursor that match the filters.
  renderLog(events, cursor) {
    const list = this.root.querySelector("#log-rows");
    const out = [];
    for (let i = cursor - 1; i >= 0 && out.length < 300; i--) {
      const e = events[i];
      if (e.source === "metric" && this.filterStage !== "metric") continue;
      if (this.filterKey && e.key !== this.filterKey) continue;
      if (this.filterStage === "metric" && e.source !== "metric") continue;
      if (this.filterStage && this.filterStage !== "metric" && LV.stageOfEvent(this.pipeline, e) !== this.filterStage) continue;
      out.push(e);
    }
    out.reverse();
    // 一筆事件的那一列只建一次；往前播放時，只加上新的、拿掉捲出去的。
    // An event's row is built once; playing forward only adds the new rows and drops those scrolled out.
    const before = this.logRows || new Map();
    this.logRows = new Map();
    const rows = out.map((e) => {
      const li =
        before.get(e.seq) ||
        LV.el("li", { "data-seq": e.seq, "data-source": e.source || "", "data-key": e.key || "", class: e.note ? "note" : e.quiet ? "quiet" : "" }, null, [
          LV.el("span", { class: "seq" }, e.seq),
          LV.el("span", { class: "line" }, LV.text(e)),
        ]);
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

LV.stageOfEvent = function (pipeline, e) {
  for (const s of pipeline.stages) {
    for (const src of s.sources || []) {
      if (src === e.source || (src.endsWith("*") && (e.source || "").startsWith(src.slice(0, -1)))) return s.id;
    }
  }
  return "";
};

// gauge 是一根水平的量表（SVG）；長度是深度，旁邊也寫著數字，顏色不是唯一的訊號。
// gauge is a horizontal bar (SVG); its length is the depth, and the number is written beside it: colour is never the
// only signal.
LV.gauge = function () {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "gauge");
  svg.setAttribute("viewBox", "0 0 100 8");
  svg.setAttribute("aria-hidden", "true");
  const track = document.createElementNS(ns, "rect");
  track.setAttribute("class", "track");
  track.setAttribute("width", "100");
  track.setAttribute("height", "8");
  const bar = document.createElementNS(ns, "rect");
  bar.setAttribute("class", "bar");
  bar.setAttribute("height", "8");
  bar.setAttribute("width", "0");
  svg.append(track, bar);
  return svg;
};

LV.setGauge = function (svg, value) {
  const v = value === null || value === undefined ? 0 : value;
  // 對數刻度：1 到 1000 都看得出差別。 / A log scale, so 1 and 1000 both show.
  const w = v <= 0 ? 0 : Math.min(100, 15 + 28 * Math.log10(v + 1));
  svg.querySelector(".bar").setAttribute("width", w.toFixed(1));
};
