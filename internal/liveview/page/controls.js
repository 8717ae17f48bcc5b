// controls.js：時間軸（播放、暫停、一筆一筆、拉回任一時刻、速度）、解說（先預測、再播放）、說明列、語言、
// 簡報模式、網址裡的狀態、篩選，以及場景按鈕。按 ? 看每一個按鍵。
// The timeline (play, pause, one event at a time, back to any moment, speed), tours (predict, then play), the caption
// bar, language, presenter mode, the state kept in the address, filters and the scene buttons. Press ? for every key.
"use strict";
window.LV = window.LV || {};

LV.Controls = class {
  constructor(app) {
    this.app = app;
    this.tour = null;
    this.stop = -1; // 目前停在哪一站（-1：還沒開始）/ the stop the tour is at (-1: not started)
    this.revealed = false;
    const $ = (id) => document.getElementById(id);
    $("play").addEventListener("click", () => app.togglePlay());
    $("back").addEventListener("click", () => app.step(-1));
    $("forward").addEventListener("click", () => app.step(1));
    $("home").addEventListener("click", () => app.seek(0));
    $("follow").addEventListener("click", () => app.toEnd());
    $("slider").addEventListener("input", (ev) => app.seek(Number(ev.target.value)));
    $("speed").addEventListener("change", (ev) => this.setSpeed(Number(ev.target.value)));
    $("lang").addEventListener("click", () => this.setLang(LV.lang === "en" ? "zh" : "en"));
    $("presenter").addEventListener("click", () => this.togglePresenter());
    $("help-open").addEventListener("click", () => this.toggleHelp());
    $("help-close").addEventListener("click", () => this.toggleHelp(false));
    $("show-all").addEventListener("change", (ev) => {
      app.showAll = ev.target.checked;
      app.renderer.showQuiet = ev.target.checked;
      app.draw();
    });
    $("tour-next").addEventListener("click", () => this.next());
    $("tour-prev").addEventListener("click", () => this.prev());
    $("filter-key").addEventListener("change", (ev) => app.select(ev.target.value));
    $("filter-stage").addEventListener("change", (ev) => {
      app.renderer.filterStage = ev.target.value;
      app.draw();
    });
    $("open").addEventListener("change", (ev) => ev.target.files[0] && app.openFile(ev.target.files[0]));
    for (const b of document.querySelectorAll("#scene-form button")) {
      b.addEventListener("click", () => this.scene(b.dataset.args));
    }
    document.addEventListener("keydown", (ev) => this.key(ev));
    // ?tour=0 關掉解說：從頭照教學的步調播完整段。 / ?tour=0 turns the tour off: the whole demo plays at a teaching pace.
    const noTour = new URLSearchParams(location.search).get("tour") === "0";
    const tour = document.getElementById("tour-data");
    if (noTour) this.setTour(null);
    else if (tour) this.setTour(JSON.parse(tour.textContent));
    // 重播時解說從伺服器來：頁面等它到了才開始播放。 / In a replay the tour comes from the server: the page waits for it before playing.
    this.tourReady = Promise.resolve();
    if (!noTour && !tour && app.mode === "replay") {
      this.tourReady = fetch("tour.json" + app.authQuery())
        .then((r) => (r.ok ? r.json() : null))
        .then((t) => t && this.setTour(t))
        .catch(() => {});
    }
    if (new URLSearchParams(location.search).get("embed") === "1") this.embed();
    this.labels();
    addEventListener("resize", () => this.reserveCaption());
    if (document.fonts) document.fonts.ready.then(() => this.reserveCaption());
  }

  key(ev) {
    // 在文字欄位與選單裡，按鍵屬於它們；滑桿與按鈕上，按鍵照樣是頁面的（preventDefault 讓它們不再自己動一次）。
    // In a text field or a menu the keys are theirs; on the slider and the buttons they are still the page's
    // (preventDefault keeps them from acting a second time on their own).
    if (ev.target.matches('input:not([type="range"]):not([type="file"]):not([type="checkbox"]), select, textarea')) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const app = this.app;
    const keys = {
      " ": () => (this.asking() ? this.next() : app.togglePlay()),
      ArrowLeft: () => (ev.shiftKey ? app.seek(app.cursor - 1) : app.step(-1)),
      ArrowRight: () => (ev.shiftKey ? app.seek(app.cursor + 1) : app.step(1)),
      Home: () => app.seek(0),
      End: () => app.toEnd(),
      PageDown: () => this.next(),
      PageUp: () => this.prev(),
      ".": () => app.togglePlay(),
      "[": () => this.setSpeed(LV.SPEEDS[Math.max(0, LV.SPEEDS.indexOf(LV.speed) - 1)]),
      "]": () => this.setSpeed(LV.SPEEDS[Math.min(LV.SPEEDS.length - 1, LV.SPEEDS.indexOf(LV.speed) + 1)]),
      p: () => this.togglePresenter(),
      l: () => this.setLang(LV.lang === "en" ? "zh" : "en"),
      "?": () => this.toggleHelp(),
      Escape: () => this.toggleHelp(false),
    };
    const act = keys[ev.key];
    if (act) {
      ev.preventDefault();
      act();
    }
  }

  // labels 依目前的語言填上每一句固定的文字。 / labels fills every fixed string in the current language.
  labels() {
    document.documentElement.lang = LV.lang === "zh" ? "zh-TW" : "en";
    for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = LV.t(node.dataset.i18n);
    for (const node of document.querySelectorAll("[data-i18n-label]")) {
      node.setAttribute("aria-label", LV.t(node.dataset.i18nLabel));
      node.title = LV.t(node.dataset.i18nLabel) + (node.dataset.key ? LV.t("paren").replace("{n}", node.dataset.key) : "");
    }
    document.getElementById("lang").textContent = LV.t("language");
    const speed = document.getElementById("speed");
    speed.replaceChildren(...LV.SPEEDS.map((s) => LV.el("option", { value: s }, LV.speedName(s))));
    speed.value = String(LV.speed);
    this.app.updateStatus();
  }

  setLang(lang) {
    LV.lang = lang;
    try {
      localStorage.setItem("lv-lang", lang);
    } catch (e) {
      // 沒有 localStorage 時只在這一頁換。 / Without localStorage, switch for this page only.
    }
    this.labels();
    this.app.renderer.build();
    this.app.fillFilters();
    this.reserveCaption();
    this.app.draw();
  }

  setSpeed(s) {
    if (!LV.SPEEDS.includes(s)) return;
    LV.speed = s;
    document.getElementById("speed").value = String(s);
    this.app.draw();
  }

  togglePresenter(on) {
    const now = document.body.classList.toggle("presenter", on);
    document.getElementById("presenter").setAttribute("aria-pressed", String(now));
    this.reserveCaption();
    this.app.draw();
  }

  toggleHelp(on) {
    const help = document.getElementById("help");
    help.hidden = on === undefined ? !help.hidden : !on;
  }

  // embed 是部落格裡的樣子：只有管線、說明列與精簡的時間軸，並把自己的高度告訴外面的頁面，讓 iframe 跟著調整。
  // embed is the look inside a blog: the pipeline, the caption bar and a compact timeline only, and it tells the
  // parent page its height so the iframe can size itself.
  embed() {
    document.body.classList.add("embed");
    this.reserveCaption();
    const tell = () => {
      // 量 body 本身，不量整份文件：文件至少跟 iframe 一樣高，iframe 就只會變高、永遠縮不回來。
      // Measure the body, not the document: the document is at least as tall as the iframe, which could then only grow.
      const height = Math.ceil(document.body.getBoundingClientRect().height);
      if (window.parent !== window) window.parent.postMessage({ type: "informer-walkthrough:height", height: height }, "*");
    };
    new ResizeObserver(tell).observe(document.body);
    tell();
  }

  // restore 依網址還原：語言、速度、簡報模式、選取的 key、解說的哪一站（?lang=zh-TW&speed=2&presenter=1&key=…&stop=…）。
  // restore sets what the address says: language, speed, presenter mode, the selected key, the tour stop. It returns
  // true when it went to a tour stop.
  restore(params) {
    const lang = params.get("lang");
    if (lang === "zh-TW" || lang === "zh") this.setLang("zh");
    if (lang === "en") this.setLang("en");
    const speed = Number(params.get("speed"));
    if (LV.SPEEDS.includes(speed)) this.setSpeed(speed);
    if (params.get("presenter") === "1") this.togglePresenter(true);
    const key = params.get("key");
    if (key) this.app.select(key);
    const stop = params.get("stop");
    if (this.tour && stop !== null && stop !== "") {
      this.restoredStop = true;
      this.goStop(Math.max(0, Math.min(this.tour.stops.length - 1, Number(stop) - 1)), false);
      return true;
    }
    return false;
  }

  // saveURL 把目前的樣子寫進網址（不增加瀏覽紀錄），複製下來的連結就開啟同一個畫面。
  // saveURL writes the current view into the address (adding no history entry), so a copied link opens this view.
  saveURL() {
    const app = this.app;
    if (!app.ended && app.mode === "live" && app.following) return;
    const q = new URLSearchParams(location.search);
    const last = app.timeline.events[app.cursor - 1];
    if (app.playing) q.delete("at");
    else q.set("at", app.following || app.cursor >= app.timeline.events.length ? "end" : String(last ? last.seq : 0));
    const set = (k, v) => (v ? q.set(k, v) : q.delete(k));
    set("key", app.renderer.selected);
    // 英文也寫進網址：複製出去的連結與嵌入，在慣用中文的瀏覽器上也照樣是英文。
    // English goes into the address too: a copied link or an embed stays English in a browser that prefers Chinese.
    set("lang", LV.lang === "zh" ? "zh-TW" : "en");
    set("speed", LV.speed !== 1 ? String(LV.speed) : "");
    set("presenter", document.body.classList.contains("presenter") ? "1" : "");
    set("stop", this.tour && this.stop >= 0 ? String(this.stop + 1) : "");
    const url = location.pathname + "?" + q.toString();
    if (url !== location.pathname + location.search) {
      try {
        history.replaceState(null, "", url);
      } catch (e) {
        // 從磁碟開啟的檔案有些瀏覽器不讓改網址。 / Some browsers refuse a new address for a file opened from disk.
      }
    }
  }

  // setTour 換上一份解說：依序的站，每一站對應錄製檔裡的一筆事件（seq），有兩種語言的說明，有的還有先問的問題。
  // setTour installs a tour: ordered stops, each tied to an event of the recording (seq), with a caption in both
  // languages and, at some, a question asked first.
  setTour(tour) {
    this.tour = tour && tour.stops && tour.stops.length ? tour : null;
    this.stop = -1;
    this.stopAt = null;
    document.body.classList.toggle("has-tour", !!this.tour);
    if (this.tour) document.getElementById("tour-count").textContent = "/" + this.tour.stops.length;
    this.reserveCaption();
  }

  // reserveCaption 在嵌入的頁面裡讓說明列一直有這份解說裡最高那一站的高度（答案揭曉、底下那一行輸出都算進去）：
  // 換站時說明列不會變高變矮，部落格的內文不會因此跟著跳。視窗大小或語言一變就重新量。只在嵌入時這樣做：
  // 投影幕的高度有限，最高那一站的空白可能把管線推出 1024×768 的畫面，一般的頁面也不必多留空白。
  // reserveCaption keeps an embed's caption bar as tall as the tallest stop of the tour (answer revealed, the output
  // line below included): the bar does not grow and shrink from stop to stop, so the blog's text below does not jump.
  // A new window size or language measures again. Only an embed does this: a projector's height is short, and the
  // tallest stop's blank space could push the pipeline off a 1024×768 screen, and the full page need not carry the
  // blank space.
  reserveCaption() {
    const bar = document.getElementById("caption");
    bar.style.minHeight = "";
    if (!this.tour || !document.body.classList.contains("embed")) return;
    const text = bar.querySelector(".text");
    const question = bar.querySelector(".question");
    const said = bar.querySelector(".said");
    const saved = { text: text.textContent, question: [...question.childNodes], asked: question.hidden, said: said.textContent, quiet: said.hidden };
    let tallest = 0;
    for (const s of this.tour.stops) {
      text.textContent = LV.pick(s.caption);
      question.hidden = !s.question;
      if (s.question) {
        question.replaceChildren(LV.el("span", { class: "ask" }, LV.pick(s.question) + LV.t("gap")), LV.el("span", { class: "answer" }, LV.pick(s.question.answer)));
      }
      said.hidden = false;
      said.textContent = "·\n·";
      tallest = Math.max(tallest, bar.offsetHeight);
    }
    text.textContent = saved.text;
    question.replaceChildren(...saved.question);
    question.hidden = saved.asked;
    said.textContent = saved.said;
    said.hidden = saved.quiet;
    bar.style.minHeight = tallest + "px";
  }

  // stopIndex 把游標的位置對應到站；整份錄製檔讀完才建立（之前位置還會變）。
  // stopIndex maps cursor positions to stops; it is built once the whole recording is in (until then positions move).
  stopIndex() {
    if (this.stopAt) return this.stopAt;
    const index = new Map();
    if (!this.tour || !this.app.ended) return index;
    this.tour.stops.forEach((s, i) => index.set(this.app.indexOfSeq(s.seq), i));
    return (this.stopAt = index);
  }

  // tourStart 從頭開始解說。 / tourStart begins the tour from the start.
  tourStart() {
    this.stop = -1;
    this.app.following = false;
    this.app.cursor = 0;
    this.app.play();
  }

  // atStop 在播放走到一站時回傳 true（播放就停在那裡），並把那一站顯示出來。
  // atStop returns true when playing reaches a stop (playing then stops there), and shows that stop.
  atStop(cursor) {
    if (!this.tour) return false;
    const i = this.stopIndex().get(cursor);
    if (i === undefined || i === this.stop) return false;
    this.stop = i;
    this.revealed = !this.tour.stops[i].question;
    return true;
  }

  goStop(i, play) {
    const s = this.tour.stops[i];
    this.stop = i;
    this.revealed = !s.question;
    this.app.seek(this.app.indexOfSeq(s.seq));
    if (play) this.app.play();
  }

  // next：有問題還沒揭曉就先揭曉答案；否則從這一站往下一站播放（沒有解說時，跳到下一行說明）。
  // next: with a question not yet answered, reveal the answer; else play on to the next stop (without a tour, go to
  // the next narration line).
  next() {
    const app = this.app;
    if (!this.tour) {
      const ev = app.timeline.events;
      let c = app.cursor;
      while (c < ev.length && !ev[c].note) c++;
      app.seek(Math.min(ev.length, c + 1));
      return;
    }
    if (this.stop >= 0 && !this.revealed) {
      this.revealed = true;
      app.draw();
      return;
    }
    // 最後一站之後：還沒到最後就播到最後；已經在最後就不動，多按一下遙控器不會跳回第一站。
    // After the last stop: play to the end if not there yet; at the end do nothing, so one clicker press too many
    // does not jump back to stop 1.
    if (this.stop >= this.tour.stops.length - 1) {
      if (app.cursor < app.timeline.events.length) app.play();
      return;
    }
    if (this.stop < 0) {
      app.seek(0);
    }
    app.play();
  }

  // asking 在目前這一站的問題還沒揭曉時為真：空白鍵這時先揭曉答案，跟 PageDown 一樣。
  // asking is true while the current stop's question is not yet answered: then space reveals the answer first, as
  // PageDown does.
  asking() {
    return Boolean(this.tour && this.stop >= 0 && !this.revealed && !this.app.playing);
  }

  prev() {
    const app = this.app;
    if (!this.tour) {
      const ev = app.timeline.events;
      let c = app.cursor - 2;
      while (c > 0 && !ev[c].note) c--;
      app.seek(Math.max(0, c + 1));
      return;
    }
    if (this.stop <= 0) {
      this.stop = -1;
      app.seek(0);
      return;
    }
    this.goStop(this.stop - 1, false);
  }

  // caption 寫出說明列：最近的一站（它比最近的說明行新時）或步驟自己印的最近一行說明。解說的問題在揭曉之前只問不答。
  // caption writes the caption bar: the latest stop (when newer than the latest narration line) or the latest
  // narration the step printed. A tour's question is asked, not answered, until revealed.
  caption(state, last) {
    const bar = document.getElementById("caption");
    const text = bar.querySelector(".text");
    const question = bar.querySelector(".question");
    const seq = last ? last.seq : 0;
    let stop = null;
    if (this.tour) {
      for (let i = this.tour.stops.length - 1; i >= 0; i--) {
        if (this.tour.stops[i].seq <= seq) {
          stop = { i: i, s: this.tour.stops[i] };
          break;
        }
      }
      // 從時間軸跳過去時，站跟著游標。 / Jumping by the timeline, the stop follows the cursor.
      if (!this.app.playing && stop && stop.i !== this.stop && !this.restoredStop) {
        this.stop = stop.i;
        this.revealed = !stop.s.question || stop.s.seq < seq;
      }
      this.restoredStop = false;
    }
    bar.dataset.stop = stop ? stop.i + 1 : "";
    document.getElementById("tour-at").textContent = stop ? String(stop.i + 1) : "–";
    // 步驟印的說明行是英文（終端機印的就是這些字）；中文頁面只要已經到過解說的一站，說明列就留著最近那一站的中文說明，
    // 說明行仍在底下「步驟印出的最近一行」看得到。
    // The narration lines a step prints are English (they are what the terminal prints); a Chinese page keeps the
    // latest stop's Chinese caption when there is one, and the narration still shows below as the latest line printed.
    if (stop && (stop.s.seq >= state.noteSeq || LV.lang !== "en")) {
      text.textContent = LV.pick(stop.s.caption);
      bar.dataset.source = "tour";
      const q = stop.s.question;
      question.hidden = !q;
      if (q) {
        const asking = stop.i === this.stop && !this.revealed;
        question.dataset.state = asking ? "asked" : "answered";
        // 答案另起一行、不用粗體，跟問題分得開；嵌入的頁面裡按鍵要先點一下才有用，所以提示改說 ▼ 按鈕。
        // The answer starts its own line, not bold, apart from the question; in an embed keys work only after a
        // click, so the prompt names the ▼ button instead.
        const prompt = document.body.classList.contains("embed") ? "nextRevealsButton" : "nextReveals";
        question.replaceChildren(
          LV.el("span", { class: "ask" }, LV.pick(q) + LV.t("gap")),
          asking ? LV.el("span", { class: "prompt" }, LV.t(prompt)) : LV.el("span", { class: "answer" }, LV.pick(q.answer)),
        );
      }
    } else {
      text.textContent = state.note;
      bar.dataset.source = state.note ? "note" : "";
      question.hidden = true;
    }
    // 說明列底下是步驟最近印出的那一行：說明提到的數字（count、generation）就在那一行裡，簡報模式也看得到。
    // Under the caption, the latest line the step printed: the numbers a caption names (count, generation) are in it,
    // in presenter mode too.
    const said = bar.querySelector(".said");
    const line = bar.dataset.source === "tour" ? state.saidAny : state.said;
    said.hidden = !line;
    said.textContent = line ? LV.text(line) : "";
    said.title = said.textContent;
    bar.dataset.lang = LV.lang;
  }

  // scene 把按鈕變成 scripts/scene.sh 的參數，帶著這次執行的 token 送出。
  // scene turns a button into scripts/scene.sh's arguments and sends them with this run's token.
  async scene(kind) {
    const name = document.getElementById("scene-name").value.trim();
    const labels = document.getElementById("scene-labels").value.trim().split(/[\s,]+/).filter(Boolean);
    const args = {
      create: ["create", name, ...labels],
      label: ["label", name, labels[0] || "tier=web"],
      annotate: ["annotate", name, document.getElementById("scene-labels").value.trim()],
      delete: ["delete", name],
      "fail-on": ["annotate", name, "informer-lab/fail=true"],
      "fail-off": ["annotate", name, "informer-lab/fail-"],
      demo: ["demo"],
    }[kind];
    const said = document.getElementById("scene-said");
    said.textContent = "scene " + args.join(" ") + " …";
    try {
      const resp = await fetch("scene" + this.app.authQuery(), {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Live-Token": this.app.token },
        body: JSON.stringify({ args: args }),
      });
      said.textContent = (await resp.text()).trim() || resp.statusText;
      said.dataset.status = resp.status;
    } catch (e) {
      said.textContent = String(e);
    }
  }
};
