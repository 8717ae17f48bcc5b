// i18n.js：頁面上每一句固定的文字，兩種語言在同一張表裡，中文照 docs/zh-TW/glossary.md 的寫法
// （go test ./docs 檢查這個檔案）。中文的標點用全形，數量用「筆」。
// Every fixed string on the page, both languages in one table; the zh-TW follows docs/zh-TW/glossary.md (go test
// ./docs checks this file). Chinese punctuation is full-width, and counts of events take the measure word 筆.
"use strict";
window.LV = window.LV || {};

LV.strings = {
  live: { en: "live", zh: "即時" },
  replay: { en: "replay", zh: "重播中" },
  paused: { en: "paused", zh: "已暫停" },
  end: { en: "at the end", zh: "已到最後" },
  disconnected: { en: "step stopped", zh: "步驟已停止" },
  rewound: { en: "playing back", zh: "回溯播放中" },
  play: { en: "Play", zh: "播放" },
  replayAgain: { en: "Play again from the start", zh: "從頭再播一次" },
  pause: { en: "Pause", zh: "暫停" },
  home: { en: "To the start", zh: "回到開頭" },
  back: { en: "Previous event", zh: "上一筆" },
  forward: { en: "Next event", zh: "下一筆" },
  follow: { en: "Follow live", zh: "跟上即時" },
  jumpEnd: { en: "Jump to end", zh: "跳到最後" },
  speed: { en: "Speed", zh: "速度" },
  slider: { en: "Moment in the recording", zh: "錄製檔裡的時刻" },
  prevStop: { en: "Previous tour stop", zh: "解說的上一站" },
  nextStop: { en: "Next tour stop (or reveal the answer)", zh: "解說的下一站（或揭曉答案）" },
  nextReveals: { en: "(PageDown: the answer)", zh: "（PageDown：看答案）" },
  nextRevealsButton: { en: "(▼: the answer)", zh: "（▼：看答案）" },
  gap: { en: " ", zh: "" },
  colon: { en: ": ", zh: "：" },
  listSep: { en: ", ", zh: "、" },
  paren: { en: " ({n})", zh: "（{n}）" },
  deletingCell: { en: "(deleting)", zh: "（刪除中）" },
  presenter: { en: "Presenter mode", zh: "簡報模式" },
  help: { en: "Keys", zh: "按鍵說明" },
  language: { en: "中文", zh: "English" },
  openRecording: { en: "Open a recording…", zh: "開啟錄製檔…" },
  cache: { en: "What the cache holds", zh: "快取裡有什麼" },
  cacheHint: { en: "as the step last saw each object", zh: "每個物件在步驟最後一次看到時的樣子" },
  colKey: { en: "key", zh: "key" },
  colPhase: { en: "phase", zh: "phase" },
  colNode: { en: "node", zh: "節點" },
  colLabels: { en: "labels", zh: "標籤" },
  index: { en: "The index", zh: "索引" },
  listeners: { en: "Each handler's backlog", zh: "每個處理函式的積壓" },
  listenersHint: { en: "events it has not handled yet · calls so far", zh: "還沒處理的事件數 · 到目前為止的呼叫次數" },
  backlog: { en: "backlog", zh: "積壓" },
  workqueue: { en: "The workqueue", zh: "workqueue" },
  queued: { en: "waiting", zh: "等待中" },
  retries: { en: "retries waiting out their backoff", zh: "等著退避結束的重試" },
  workersLast: { en: "each worker's last step", zh: "每個 worker 最後做的事" },
  droppedKeys: { en: "dropped after their last retry", zh: "最後一次重試失敗後丟棄的 key" },
  merged: { en: "changes merged into a key already waiting: ", zh: "併入等待中 key 的變化：" },
  depth: { en: "depth", zh: "深度" },
  events: { en: "events", zh: "筆事件" },
  event1: { en: "event", zh: "筆事件" },
  calls: { en: "calls", zh: "次呼叫" },
  call1: { en: "call", zh: "次呼叫" },
  skipped: { en: "skipped", zh: "跳過" },
  skippedN: { en: "skipped {n}", zh: "跳過 {n} 筆" },
  opaque: { en: "items inside not visible", zh: "看不到裡面的項目" },
  resourceVersion: { en: "resourceVersion", zh: "resourceVersion" },
  undrawn: { en: "events this page cannot draw (listed in the log):", zh: "這個頁面畫不出來的事件（列在「每一筆事件」裡）：" },
  noPath: { en: "not seen in a stage yet", zh: "還沒在任何階段出現" },
  inLanes: { en: "{n} events, in the handlers' own lanes ({lanes}): each handler has its own copy of the events it gets", zh: "{n} 筆事件，在處理函式各自的 lane 裡（{lanes}）：每個處理函式收到的事件都是自己的一份" },
  onlyOpaque: { en: "{n} events, all in boxes that draw no tokens (hatched); the latest in {stage}", zh: "{n} 筆事件，都在畫不出圓標的方框（斜線網底）裡；最近一筆在「{stage}」" },
  via: { en: "via", zh: "經由" },
  earlierN: { en: "… {n} earlier hops →", zh: "…前面還有 {n} 段 →" },
  log: { en: "Every event", zh: "每一筆事件" },
  allKeys: { en: "every key", zh: "所有 key" },
  allStages: { en: "every stage", zh: "所有階段" },
  showAll: { en: "also events the terminal does not print (requests, Get, Done)", zh: "也列出終端機不印的事件（請求、Get、Done）" },
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
  none: { en: "(none)", zh: "（無）" },
  dropped: { en: "older events were dropped; this history starts at event", zh: "較舊的事件已丟棄；這段歷史從這一筆開始：" },
  readError: { en: "could not read the whole recording", zh: "無法讀完整個錄製檔" },
  chapter: { en: "The chapter, in the repository:", zh: "這一步的章節（在 repo 裡）：" },
  helpTitle: { en: "Keys", zh: "按鍵" },
  keySpace: { en: "space", zh: "空白鍵" },
  helpSpace: { en: "play or pause (at the end: play again from the start; at a question: the answer)", zh: "播放或暫停（在最後：從頭再播；在問題那一站：揭曉答案）" },
  helpArrows: { en: "previous or next event that changes the picture", zh: "跳到上一筆或下一筆改變畫面的事件" },
  helpShift: { en: "exactly one event back or forward", zh: "剛好退一筆或進一筆" },
  helpPages: { en: "next or previous tour stop (a presentation clicker sends these); at a question, PageDown shows the answer", zh: "解說的下一站或上一站（簡報遙控器送的就是這兩個鍵）；遇到問題時，PageDown 揭曉答案" },
  helpEnds: { en: "to the start, to the end", zh: "回到開頭、跳到最後" },
  helpSpeed: { en: "slower, faster (¼× to 4×)", zh: "放慢、加快（¼× 到 4×）" },
  helpPresenter: { en: "presenter mode, for a projector", zh: "簡報模式，給投影機用" },
  helpLang: { en: "中文 / English", zh: "English／中文" },
  helpHelp: { en: "this list", zh: "這份清單" },
  helpURL: { en: "The address always holds this view (moment, key, language, speed, presenter mode, tour stop): copy it to share exactly this.", zh: "網址一直記著目前的畫面（時刻、key、語言、速度、簡報模式、解說的哪一站）：複製它，別人開啟看到的就是這個畫面。" },
  close: { en: "Close", zh: "關閉" },
  "kind-object": { en: "seen here", zh: "在這裡" },
  "kind-gone": { en: "deleted", zh: "已刪除" },
  "kind-old": { en: "an old event, this handler is behind", zh: "舊的事件：這個處理函式落後了" },
  "kind-waiting": { en: "waiting in the queue", zh: "在佇列裡等" },
  "kind-merged": { en: "merged into the queued key", zh: "併入等待中的 key" },
  "kind-working": { en: "a worker holds it", zh: "worker 正在處理" },
  "kind-failed": { en: "its sync failed", zh: "同步失敗" },
  "kind-backoff": { en: "waiting out its backoff", zh: "等退避結束" },
  "kind-dropped": { en: "dropped after its last retry", zh: "最後一次重試後丟棄" },
  "kind-skipped": { en: "filtered out: nothing queued", zh: "被過濾掉：沒有放進佇列" },
  "op-get": { en: "took", zh: "取出" },
  "op-sync": { en: "synced", zh: "同步" },
  "op-write": { en: "wrote {key} back to the API server", zh: "把 {key} 寫回 API server" },
  "op-conflict": { en: "409 on", zh: "{key} 寫入時 409 衝突" },
  "op-fail": { en: "failed on {key}", zh: "{key} 同步失敗" },
  "op-drop": { en: "dropped", zh: "丟棄" },
};

// LV.lang 是目前的語言（"en" 或 "zh"）；LV.t 依目前的語言取出一句。
// LV.lang is the current language ("en" or "zh"); LV.t picks a string in it.
LV.lang = (function () {
  // 嵌入的頁面不看這個瀏覽器上次用的語言：部落格裡的頁面跟著網址（?lang=），沒寫就是英文。
  // An embed ignores the language this browser used last: a page in a blog follows its address (?lang=), else English.
  if (new URLSearchParams(location.search).get("embed") === "1") return "en";
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
LV.calls = function (n) {
  return n + " " + LV.t(n === 1 ? "call1" : "calls");
};
// LV.position 是時間軸上的位置：「event 12 of 40 · 1.5 s」，中文是「第 12／40 筆 · 1.5 秒」。
// LV.position is the place on the timeline: "event 12 of 40 · 1.5 s", in Chinese 「第 12／40 筆 · 1.5 秒」.
LV.position = function (seq, total, ms) {
  const s = (ms / 1000).toFixed(1);
  return LV.lang === "zh" ? "第 " + seq + "／" + total + " 筆 · " + s + " 秒" : "event " + seq + " of " + total + " · " + s + " s";
};
LV.speedName = function (s) {
  return ({ 0.25: "¼×", 0.5: "½×" }[s] || s + "×");
};
LV.pick = function (text) {
  return text ? text[LV.lang] || text.en || "" : "";
};
