// controls.js：時間軸（暫停、單步、拉回任一時刻）、語言、簡報模式、篩選，以及場景按鈕。鍵盤：空白鍵暫停或播放，
// 左右方向鍵單步，Home／End 到頭尾，p 簡報模式，l 換語言。
// The timeline (pause, single step, back to any moment), language, presenter mode, filters and the scene buttons.
// Keyboard: space pauses or plays, the arrow keys step, Home/End go to either end, p toggles presenter mode, l the
// language.
"use strict";
window.LV = window.LV || {};

LV.Controls = class {
  constructor(app) {
    this.app = app;
    const $ = (id) => document.getElementById(id);
    $("play").addEventListener("click", () => app.togglePlay());
    $("back").addEventListener("click", () => app.seek(app.cursor - 1));
    $("forward").addEventListener("click", () => app.seek(app.cursor + 1));
    $("follow").addEventListener("click", () => app.followLive());
    $("slider").addEventListener("input", (ev) => app.seek(Number(ev.target.value)));
    $("lang").addEventListener("click", () => this.setLang(LV.lang === "en" ? "zh" : "en"));
    $("presenter").addEventListener("click", () => this.togglePresenter());
    $("filter-key").addEventListener("change", (ev) => app.select(ev.target.value));
    $("filter-stage").addEventListener("change", (ev) => {
      app.renderer.filterStage = ev.target.value;
      app.draw();
    });
    $("open").addEventListener("change", (ev) => ev.target.files[0] && app.openFile(ev.target.files[0]));
    for (const b of document.querySelectorAll("#scene-form button")) {
      b.addEventListener("click", () => this.scene(b.dataset.args));
    }
    document.addEventListener("keydown", (ev) => {
      // 在文字欄位與選單裡，按鍵屬於它們；滑桿與按鈕上，按鍵照樣是頁面的（preventDefault 讓它們不再自己動一次）。
      // In a text field or a menu the keys are theirs; on the slider and the buttons they are still the page's
      // (preventDefault keeps them from acting a second time on their own).
      if (ev.target.matches('input:not([type="range"]):not([type="file"]), select, textarea')) return;
      const keys = {
        " ": () => app.togglePlay(),
        ArrowLeft: () => app.seek(app.cursor - 1),
        ArrowRight: () => app.seek(app.cursor + 1),
        Home: () => app.seek(0),
        End: () => app.followLive(),
        p: () => this.togglePresenter(),
        l: () => this.setLang(LV.lang === "en" ? "zh" : "en"),
      };
      if (keys[ev.key]) {
        ev.preventDefault();
        keys[ev.key]();
      }
    });
    this.labels();
  }

  // labels 依目前的語言填上每一句固定的文字。 / labels fills every fixed string in the current language.
  labels() {
    document.documentElement.lang = LV.lang === "zh" ? "zh-TW" : "en";
    for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = LV.t(node.dataset.i18n);
    const set = (id, key) => {
      const b = document.getElementById(id);
      b.textContent = LV.t(key);
      b.title = LV.t(key);
    };
    set("back", "back");
    set("forward", "forward");
    set("follow", "follow");
    set("lang", "language");
    set("presenter", "presenter");
    document.querySelector("#open-label span").textContent = LV.t("openRecording");
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
    this.app.draw();
  }

  togglePresenter() {
    const on = document.body.classList.toggle("presenter");
    document.getElementById("presenter").setAttribute("aria-pressed", String(on));
    this.app.draw();
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
      const resp = await fetch("scene", {
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
