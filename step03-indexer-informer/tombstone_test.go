package main

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// 情境：給你自己的控制器抄的範本。刪除處理函式收到的不一定是 *v1.Pod：informer 錯過了刪除（例如 watch
// 斷線期間），就在重新 List 時交給它一個 cache.DeletedFinalStateUnknown，裡面是它最後知道的物件（也可能
// 根本不是 Pod）。這裡不需要 API server：手做一個墓碑，直接交給處理函式，看它解開、不 panic。
// 在真的 API server 上讓墓碑出現的，是 informer_test.go 的 TestSurvivesAPIServerRestart。
//
// The story: a template to copy for your own controller. A delete handler
// does not always get a *v1.Pod: when the informer missed the delete (while
// its watch was down, say), the relist hands it a
// cache.DeletedFinalStateUnknown holding the last object it knew (which may
// not even be a pod). No API server is needed here: make a tombstone by hand,
// give it to the handler, and see it unwrapped without a panic.
// TestSurvivesAPIServerRestart in informer_test.go makes a real one appear on
// a real API server.
func TestTombstoneTemplate(t *testing.T) {
	last := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "gone", Labels: map[string]string{"app": "demo"}}}
	for _, tc := range []struct {
		name    string
		obj     any
		wantKey string
		wantPod bool
		line    string
	}{
		{"a pod", last, "default/gone", true, "OnDelete  default/gone "},
		{"a tombstone holding the pod", cache.DeletedFinalStateUnknown{Key: "default/gone", Obj: last}, "default/gone", true, "tombstone: deleted while we were not watching; last known "},
		// 墓碑的 key 是 informer 的 key，不一定等於裡面物件的名字；裡面也可能不是 Pod。
		// A tombstone's key is the informer's key, not necessarily its object's name; and the object may not be a pod.
		{"a tombstone holding something else", cache.DeletedFinalStateUnknown{Key: "default/gone", Obj: "not a pod"}, "default/gone", false, "tombstone: deleted while we were not watching"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			key, pod := onDelete(&out, tc.obj)
			if key != tc.wantKey {
				t.Errorf("key %q; want %q", key, tc.wantKey)
			}
			if (pod != nil) != tc.wantPod {
				t.Errorf("pod %v; want one: %v", pod, tc.wantPod)
			}
			if !strings.Contains(out.String(), tc.line) {
				t.Errorf("printed %q; want it to say %q", out.String(), tc.line)
			}
		})
	}
}
