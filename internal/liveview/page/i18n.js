// i18n.js：頁面上每一句固定的文字，兩種語言在同一張表裡，中文照 docs/zh-TW/glossary.md 的寫法。
// Every fixed string on the page, both languages in one table; the zh-TW follows docs/zh-TW/glossary.md.
"use strict";
window.LV = window.LV || {};

LV.strings = {
  live: { en: "live", zh: "即時" },
  replay: { en: "replay", zh: "重播" },
  paused: { en: "paused", zh: "暫停" },
  disconnected: { en: "step stopped", zh: "步驟已停止" },
  rewound: { en: "playing back", zh: "倒帶播放" },
  play: { en: "Play", zh: "播放" },
  pause: { en: "Pause", zh: "暫停" },
  back: { en: "Back one event", zh: "退一筆" },
  forward: { en: "Forward one event", zh: "進一筆" },
  follow: { en: "Follow live", zh: "跟上即時" },
  presenter: { en: "Presenter mode", zh: "簡報模式" },
  language: { en: "中文", zh: "English" },
  openRecording: { en: "Open a recording…", zh: "開啟錄製檔…" },
  event: { en: "event", zh: "事件" },
  of: { en: "of", zh: "／" },
  cache: { en: "What the cache holds", zh: "快取裡有什麼" },
  cacheHint: { en: "as the step last saw each object", zh: "每個物件在步驟最後一次看到時的樣子" },
  index: { en: "The byApp index", zh: "byApp 索引" },
  listeners: { en: "Each handler's backlog", zh: "每個處理函式的積壓" },
  workqueue: { en: "The workqueue", zh: "workqueue" },
  queued: { en: "waiting", zh: "等待中" },
  retries: { en: "retries waiting out their backoff", zh: "等著退避結束的重試" },
  workersLast: { en: "each worker's last sync", zh: "每個 worker 最後一次同步" },
  merged: { en: "changes whose key was already queued (or being synced):", zh: "key 已在佇列裡（或正在同步）的變化：" },
  depth: { en: "depth", zh: "深度" },
  events: { en: "events", zh: "事件" },
  event1: { en: "event", zh: "事件" },
  opaque: { en: "items inside not visible", zh: "看不到裡面的項目" },
  resourceVersion: { en: "resourceVersion", zh: "resourceVersion" },
  log: { en: "Every event", zh: "每一筆事件" },
  allKeys: { en: "every key", zh: "所有 key" },
  allStages: { en: "every stage", zh: "所有階段" },
  notes: { en: "notes", zh: "說明" },
  metrics: { en: "metrics (client-go's, as /metrics shows them)", zh: "metrics（client-go 的，跟 /metrics 一樣）" },
  scene: { en: "Change the cluster", zh: "改變叢集" },
  sceneHint: { en: "the same commands as scripts/scene.sh", zh: "跟 scripts/scene.sh 同樣的指令" },
  name: { en: "pod name", zh: "Pod 名稱" },
  labels: { en: "labels", zh: "標籤" },
  create: { en: "Create", zh: "建立" },
  label: { en: "Label", zh: "加標籤" },
  annotate: { en: "Annotate", zh: "加 annotation" },
  del: { en: "Delete", zh: "刪除" },
  failOn: { en: "Make its sync fail", zh: "讓它同步失敗" },
  failOff: { en: "Let it sync again", zh: "讓它恢復同步" },
  demo: { en: "Demo", zh: "整段示範" },
  empty: { en: "(empty)", zh: "（空的）" },
  dropped: { en: "older events were dropped; this history starts at event", zh: "較舊的事件已丟掉；這段歷史從這一筆開始：" },
  readError: { en: "could not read the whole recording", zh: "錄製檔沒有全部讀完" },
  selected: { en: "selected", zh: "已選取" },
  chapter: { en: "The chapter, in your clone:", zh: "這一步的章節（在你的 clone 裡）：" },
};

// LV.lang 是目前的語言（"en" 或 "zh"）；LV.t 依目前的語言取出一句。
// LV.lang is the current language ("en" or "zh"); LV.t picks a string in it.
LV.lang = (function () {
  try {
    const saved = localStorage.getItem("lv-lang");
    if (saved === "en" || saved === "zh") return saved;
  } catch (e) {
    // 從磁碟開啟的檔案可能沒有 localStorage。 / A file opened from disk may have no localStorage.
  }
  return (navigator.language || "").startsWith("zh") ? "zh" : "en";
})();
LV.t = function (key) {
  const s = LV.strings[key];
  return s ? s[LV.lang] : key;
};
// LV.events 是「n 筆事件」：英文在 1 的時候用單數。 / LV.events is "n events", singular for 1 in English.
LV.events = function (n) {
  return n + " " + LV.t(n === 1 ? "event1" : "events");
};
LV.pick = function (text) {
  return text ? text[LV.lang] || text.en : "";
};
