// Package scene 製造 Pod 的變化讓步驟觀察：建立、改標籤、加註解、刪除。
// 測試、scripts/scene.sh 與導覽腳本都用它，只需要 Go，不需要 kubectl。
//
// Package scene makes pod changes for the steps to observe: create, relabel,
// annotate, delete. The tests, scripts/scene.sh and the walkthrough script all
// use it; it needs only Go, no kubectl.
package scene

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// Image 是 Pod 使用的映像檔。本機控制平面沒有 kubelet，Pod 會一直是 Pending；
// 在 kind 上它會真的跑起來。informer 不在乎兩者的差別。
//
// Image is the pods' container image. The local control plane has no kubelet,
// so pods stay Pending; on kind they really run. Informers do not care which.
const Image = "registry.k8s.io/pause:3.10"

// Pod 回傳一個最小的 Pod：一個 pause 容器，加上指定的標籤。
//
// Pod returns a minimal pod: one pause container, with the given labels.
func Pod(namespace, name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "pause", Image: Image}},
			// 刪除時不等待優雅關閉期，讓 DELETED 事件立刻出現。
			// No grace period on delete, so the DELETED event shows at once.
			TerminationGracePeriodSeconds: new(int64),
		},
	}
}

// Create 建立一個帶有標籤的 Pod。
//
// Create creates a pod with the given labels.
func Create(ctx context.Context, cs kubernetes.Interface, namespace, name string, labels map[string]string) (*corev1.Pod, error) {
	return cs.CoreV1().Pods(namespace).Create(ctx, Pod(namespace, name, labels), metav1.CreateOptions{})
}

// Label 設定一個標籤；value 為 nil 時刪除該標籤。用 merge patch，不必先讀取。
//
// Label sets one label, or removes it when value is nil. It uses a merge
// patch, so nothing has to be read first.
func Label(ctx context.Context, cs kubernetes.Interface, namespace, name, key string, value *string) (*corev1.Pod, error) {
	return patchMeta(ctx, cs, namespace, name, "labels", key, value)
}

// Annotate 設定一個註解；value 為 nil 時刪除該註解。
//
// Annotate sets one annotation, or removes it when value is nil.
func Annotate(ctx context.Context, cs kubernetes.Interface, namespace, name, key string, value *string) (*corev1.Pod, error) {
	return patchMeta(ctx, cs, namespace, name, "annotations", key, value)
}

func patchMeta(ctx context.Context, cs kubernetes.Interface, namespace, name, field, key string, value *string) (*corev1.Pod, error) {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{field: map[string]*string{key: value}}})
	if err != nil {
		return nil, err
	}
	return cs.CoreV1().Pods(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
}

// Delete 立即刪除一個 Pod（優雅關閉期為 0）。
//
// Delete deletes a pod at once (grace period 0).
func Delete(ctx context.Context, cs kubernetes.Interface, namespace, name string) error {
	err := cs.CoreV1().Pods(namespace).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	if err != nil {
		return fmt.Errorf("deleting pod %s/%s: %w", namespace, name, err)
	}
	return nil
}

// Value 把字串變成 Label 與 Annotate 需要的 *string；要移除時傳 nil。
//
// Value turns a string into the *string that Label and Annotate take; pass
// nil to remove instead.
func Value(s string) *string { return &s }
