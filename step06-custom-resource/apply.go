package main

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// fieldManager 是 --apply 寫 status 時的 field manager：API server 以它記下哪些欄位歸這個控制器。
//
// fieldManager is the field manager --apply writes status as: the API server
// records under it which fields belong to this controller.
const fieldManager = "podtally-controller"

// applyOptions 是 server-side apply 的選項。Force：這個控制器擁有它寫的那幾個欄位，別的 field manager
// 設過同一個欄位時，把那個欄位拿回來，而不是以 409 失敗（控制器就該這樣，kubectl 的使用者則應該先看衝突）。
//
// applyOptions are the server-side apply options. Force: this controller
// owns the fields it writes, and when another field manager has set one of
// them it takes the field back instead of failing with 409 (what a
// controller should do; a person with kubectl should look at the conflict
// first).
func applyOptions() metav1.PatchOptions {
	force := true
	return metav1.PatchOptions{FieldManager: fieldManager, Force: &force}
}

// applyBody 是 --apply 送出的內容：只有這個控制器擁有的 status 欄位（observedGeneration、count、pods 與
// Ready 這個 condition），沒有 resourceVersion。沒有 resourceVersion，就沒有樂觀並行控制：從舊的複本算出的
// 內容也不會得到 409，伺服器依欄位的擁有者合併。別的寫入者的 condition（type 不同）留著，因為 conditions
// 在 CRD 裡是以 type 為 key 的清單（+listType=map）；merge patch 則會把整個清單換掉。
//
// applyBody is what --apply sends: only the status fields this controller
// owns (observedGeneration, count, pods and the Ready condition), and no
// resourceVersion. Without a resourceVersion there is no optimistic
// concurrency: content worked out from an old copy gets no 409 either; the
// server merges by field owner. Another writer's conditions (of other
// types) stay, because the CRD makes conditions a list keyed by type
// (+listType=map); a merge patch would replace the whole list.
func applyBody(t *labv1alpha1.PodTally, want labv1alpha1.PodTallyStatus) ([]byte, error) {
	var ready []metav1.Condition
	for _, c := range want.Conditions {
		if c.Type == "Ready" {
			ready = append(ready, c)
		}
	}
	status := map[string]any{"observedGeneration": want.ObservedGeneration, "count": want.Count}
	// 一個欄位不再送出，就不再歸這個控制器：沒有別的擁有者時，伺服器把它刪掉（沒有 Pod 符合時的 pods）。
	// A field no longer sent no longer belongs to this controller: with no other owner, the server removes it (pods,
	// when none match).
	if len(want.Pods) > 0 {
		status["pods"] = want.Pods
	}
	if len(ready) > 0 {
		status["conditions"] = ready
	}
	return json.Marshal(map[string]any{
		"apiVersion": labv1alpha1.SchemeGroupVersion.String(),
		"kind":       "PodTally",
		"metadata":   map[string]any{"name": t.Name, "namespace": t.Namespace},
		"status":     status,
	})
}
