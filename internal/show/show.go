// Package show 印出每個步驟共用格式的事件行：來源、發生了什麼、哪個物件、細節。
// 欄位對齊、不含時間戳記，所以 golden file（預期輸出檔）可以逐行比對。
//
// Package show prints event lines in the format every step shares: source,
// what happened, which object, details. Columns are aligned and carry no
// timestamps, so golden files can compare them line by line.
package show

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

var mu sync.Mutex

// Line 印出一行對齊的事件：source（例如 list、watch、handler）、what
// （例如 ADDED、OnUpdate）、key（namespace/name）與 detail。可以從多個 goroutine 呼叫。
//
// Line prints one aligned event line: source (such as list, watch, handler),
// what (such as ADDED, OnUpdate), key (namespace/name) and detail. It is
// safe to call from several goroutines.
func Line(w io.Writer, source, what, key, detail string) {
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%-8s %-9s %-24s %s", source, what, key, detail), " "))
}

// Note 印出一行說明（不是事件），以 "--" 開頭，讀者一眼就能分辨。
//
// Note prints a line of narration (not an event), starting with "--" so a
// reader tells it apart at a glance.
func Note(w io.Writer, format string, args ...any) {
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(w, "-- "+format+"\n", args...)
}

// Labels 把標籤排序後寫成 app=web,tier=front；沒有標籤時寫 <none>，跟 kubectl 一樣。
//
// Labels writes labels sorted, as app=web,tier=front, or <none> when there
// are none, as kubectl does.
func Labels(labels map[string]string) string {
	if len(labels) == 0 {
		return "<none>"
	}
	kv := make([]string, 0, len(labels))
	for k, v := range labels {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return strings.Join(kv, ",")
}

var (
	resourceVersionRE = regexp.MustCompile(`(resourceVersion|timeoutSeconds)=\d+`)
	tooOldRE          = regexp.MustCompile(`too old resource version: \d+ \(\d+\)`)
)

// StripVersions 把輸出中的 resourceVersion 與 timeoutSeconds 數字換成 N，410 訊息裡的兩個版本也一樣；
// golden file 比對用，因為每次執行的數字都不同（reflector 的 watch 逾時是隨機的）。
//
// StripVersions replaces resourceVersion and timeoutSeconds numbers in output
// with N, and the two versions in a 410's message too, for golden
// comparisons, since they differ on every run (a reflector's watch timeout is
// random).
func StripVersions(s string) string {
	s = tooOldRE.ReplaceAllString(s, "too old resource version: N (N)")
	return resourceVersionRE.ReplaceAllString(s, "${1}=N")
}

// Pod 是一個 Pod 的細節欄：階段（phase）、排到哪個節點（排程之後才有）、標籤，
// 以及刪除中的標記。刪除常常先以 MODIFIED 出現（設定 deletionTimestamp），然後才是 DELETED。
//
// Pod is a pod's detail column: phase, the node it was scheduled to (once it
// was), labels, and a marker while it is being deleted. A delete often shows
// first as a MODIFIED (deletionTimestamp set), and only then as DELETED.
func Pod(p *corev1.Pod) string {
	s := "phase=" + string(p.Status.Phase)
	if p.Spec.NodeName != "" {
		s += " node=" + p.Spec.NodeName
	}
	s += " labels=" + Labels(p.Labels)
	if p.DeletionTimestamp != nil {
		s += " (deleting)"
	}
	return s
}

// Key 回傳 namespace/name，與 cache.MetaNamespaceKeyFunc 的格式相同。
//
// Key returns namespace/name, the format of cache.MetaNamespaceKeyFunc.
func Key(p *corev1.Pod) string {
	return p.Namespace + "/" + p.Name
}

// Reason 只留下錯誤訊息的最後兩段，例如 "connect: connection refused"，省掉前面重複的 URL，
// 讓說明連不上的那一行保持簡短。
//
// Reason keeps only the last two parts of an error message, such as
// "connect: connection refused", without the URL in front, so a line about
// an unreachable server stays short.
func Reason(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		if j := strings.LastIndex(s[:i], ": "); j >= 0 {
			return s[j+2:]
		}
	}
	return s
}

// Changes 說明兩個版本之間變了什麼。resourceVersion 相同表示什麼都沒變：
// 這是 resync（把快取裡的物件再交給處理函式一次）或重新 List 的結果，不是伺服器上的變化。
//
// Changes says what differs between two versions. The same resourceVersion
// means nothing changed: this is a resync (the cached object handed to the
// handler again) or a relist, not a change on the server.
func Changes(old, new *corev1.Pod) string {
	if old.ResourceVersion == new.ResourceVersion {
		return "same resourceVersion: a resync or relist, nothing changed"
	}
	var c []string
	if a, b := Labels(old.Labels), Labels(new.Labels); a != b {
		c = append(c, "labels "+a+" -> "+b)
	}
	// scheduler 綁定節點時寫的是 spec.nodeName；kubelet（這裡是 kwok）回報的是 status。
	// The scheduler's binding writes spec.nodeName; the kubelet (here kwok) reports status.
	if old.Spec.NodeName == "" && new.Spec.NodeName != "" {
		c = append(c, "nodeName set to "+new.Spec.NodeName)
	}
	if old.Status.Phase != new.Status.Phase {
		c = append(c, fmt.Sprintf("phase %s -> %s", old.Status.Phase, new.Status.Phase))
	}
	if old.DeletionTimestamp == nil && new.DeletionTimestamp != nil {
		c = append(c, "deletionTimestamp set")
	} else if a, b := old.DeletionGracePeriodSeconds, new.DeletionGracePeriodSeconds; a != nil && b != nil && *a != *b {
		c = append(c, fmt.Sprintf("deletion grace period %ds -> %ds", *a, *b))
	}
	if len(c) == 0 {
		return "other fields changed"
	}
	return strings.Join(c, "; ")
}

// Pods 寫出 Pod 的數目：1 pod、2 pods。
//
// Pods writes a number of pods: 1 pod, 2 pods.
func Pods(n int) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}

// InitialList 是處理函式那一行的標記：這次 OnAdd 來自初始清單（isInInitialList）時，是 " (initial list)"。
//
// InitialList is the handler line's marker: " (initial list)" when this
// OnAdd came from the initial list (isInInitialList).
func InitialList(isInInitialList bool) string {
	if isInInitialList {
		return " (initial list)"
	}
	return ""
}
