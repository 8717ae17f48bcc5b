package show

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// 以下是事件行的詞彙：描述一個物件、一次變化、一個數目。
// What follows is the event lines' vocabulary: how an object, a change or a
// number is described.

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

// Key 回傳任何物件的 namespace/name，與 cache.MetaNamespaceKeyFunc 的格式相同。
//
// Key returns any object's namespace/name, the format of
// cache.MetaNamespaceKeyFunc.
func Key(obj metav1.Object) string {
	return obj.GetNamespace() + "/" + obj.GetName()
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
