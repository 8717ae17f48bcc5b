// Package scene 製造 Pod 的變化讓步驟觀察：建立、改標籤、加 annotation（註記）、刪除。
// 測試、scripts/scene.sh 與導覽腳本都用它，只需要 Go，不需要 kubectl。
//
// Package scene makes pod changes for the steps to observe: create, relabel,
// annotate, delete. The tests, scripts/scene.sh and the walkthrough script all
// use it; it needs only Go, no kubectl.
package scene

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// Image 是 Pod 使用的映像檔。在本機叢集上，kwok 回報 Pod 為 Running，其實什麼都沒跑；
// 在 kind 上 container 真的會跑，而這個映像檔本來就在節點裡（kind 的 containerd 拿它當 sandbox 映像檔），
// 所以不需要 registry。informer 不在乎兩者的差別。
//
// Image is the pods' container image. On the local cluster kwok reports the
// pods Running without running anything; on kind the container really runs,
// and this image is already in the node (kind's containerd uses it as its
// sandbox image), so no registry is needed. Informers do not care which.
const Image = "registry.k8s.io/pause:3.10"

// Pod 回傳一個最小的 Pod：一個 pause container，加上指定的標籤。
//
// Pod returns a minimal pod: one pause container, with the given labels.
func Pod(namespace, name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "pause", Image: Image}},
		},
	}
}

// Create 建立一個帶有標籤的 Pod。
//
// Create creates a pod with the given labels.
func Create(ctx context.Context, cs kubernetes.Interface, namespace, name string, labels map[string]string) (*corev1.Pod, error) {
	return CreatePod(ctx, cs, Pod(namespace, name, labels))
}

// MadeBy 是 scene 建立的每個 Pod 都帶著的 annotation，reset 靠它只刪 scene 自己的 Pod。
//
// MadeBy is the annotation every pod scene creates carries; reset relies on
// it to delete scene's own pods only.
const MadeBy = "informer-lab/made-by"

// CreatePod 建立一個 Pod，並標上 MadeBy。
//
// CreatePod creates a pod, marked with MadeBy.
func CreatePod(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod) (*corev1.Pod, error) {
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[MadeBy] = "scene"
	var created *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		created, err = cs.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		// 剛建立的叢集或 namespace：kube-controller-manager 還沒建好 default ServiceAccount，
		// ServiceAccount admission 等了一兩秒就拒絕。再試就好。
		// A cluster or namespace just made: kube-controller-manager has not created the default ServiceAccount
		// yet, and ServiceAccount admission refuses after waiting a second or two. Trying again is all it takes.
		if apierrors.IsForbidden(err) && strings.Contains(err.Error(), "service account") {
			return false, nil
		}
		return true, err
	})
	return created, err
}

// Burst 盡快做 n 次標籤變化（burst=1、burst=2…），輪流分給 namespace 裡的 Pod，
// 讓多個 worker 同時有事做，同一個 key 的變化也來不及被一一處理；最後再把 burst 標籤拿掉。
// 回傳改過的 Pod。
//
// Burst makes n label changes (burst=1, burst=2, …) as fast as it can, taking
// the namespace's pods in turn, so that several workers have work at once and
// changes to one key come faster than they can be handled one by one; then it
// removes the burst label again. It returns the pods it changed.
func Burst(ctx context.Context, cs kubernetes.Interface, namespace string, n int) ([]string, error) {
	pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no pods in namespace %s to change (create some first)", namespace)
	}
	for i := 1; i <= n; i++ {
		if _, err := Label(ctx, cs, namespace, names[(i-1)%len(names)], "burst", Value(strconv.Itoa(i))); err != nil {
			return nil, err
		}
	}
	if len(names) > n {
		names = names[:n]
	}
	// 最後把標籤拿掉，Pod 回到原來的樣子，下一步的輸出才不會多出 burst=…。
	// Finally remove the label, so the pods are as they were and the next step's output shows no burst=….
	for _, name := range names {
		if _, err := Label(ctx, cs, namespace, name, "burst", nil); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// Failing 盡快建立 n 個 Pod（failing-1…failing-n，標籤 app=failing），每個都帶著 informer-lab/fail=true：
// 會讀這個 annotation 的步驟，對它們的每一次同步都失敗，一次就有 n 個 key 在重試（限速器的演練）。
// 不等它們跑起來；已經存在的保持原樣。回傳建立的名字。
//
// Failing creates n pods as fast as it can (failing-1…failing-n, labelled
// app=failing), each carrying informer-lab/fail=true: a step that reads that
// annotation fails every sync of them, so n keys retry at once (the rate
// limiter drill). It does not wait for them to run; pods already there are
// left as they are. It returns the names it created.
func Failing(ctx context.Context, cs kubernetes.Interface, namespace string, n int) ([]string, error) {
	names := make([]string, n)
	errs := make([]error, n)
	created := make([]bool, n)
	var wg sync.WaitGroup
	// 十個一起建立：夠快，又不會讓 API server 的優先順序與公平性把請求擋回來。
	// Ten at a time: fast enough, and not so many that the API server's priority and fairness pushes back.
	sem := make(chan struct{}, 10)
	for i := range n {
		names[i] = fmt.Sprintf("failing-%d", i+1)
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			pod := Pod(namespace, names[i], map[string]string{"app": "failing"})
			pod.Annotations = map[string]string{"informer-lab/fail": "true"}
			_, err := CreatePod(ctx, cs, pod)
			switch {
			case apierrors.IsAlreadyExists(err):
			case err != nil:
				errs[i] = err
			default:
				created[i] = true
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var made []string
	for i, ok := range created {
		if ok {
			made = append(made, names[i])
		}
	}
	return made, nil
}

// Reset 刪除 namespace 裡 scene 建立的每個 Pod（keep 列出的除外），等它們消失，
// 讓下一步從預期的狀態開始。
//
// Reset deletes every pod scene created in the namespace (except those named
// in keep) and waits until they are gone, so the next step starts from the
// state it expects.
func Reset(ctx context.Context, cs kubernetes.Interface, namespace string, keep ...string) ([]string, error) {
	pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var deleted []string
	for _, p := range pods.Items {
		if p.Annotations[MadeBy] != "scene" || slices.Contains(keep, p.Name) {
			continue
		}
		if err := Delete(ctx, cs, namespace, p.Name); err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
		deleted = append(deleted, p.Name)
	}
	for _, name := range deleted {
		if err := Settle(ctx, cs, namespace, name, 30*time.Second); err != nil {
			return nil, err
		}
	}
	return deleted, nil
}

// Label 設定一個標籤；value 為 nil 時刪除該標籤。用 merge patch，不必先讀取。
//
// Label sets one label, or removes it when value is nil. It uses a merge
// patch, so nothing has to be read first.
func Label(ctx context.Context, cs kubernetes.Interface, namespace, name, key string, value *string) (*corev1.Pod, error) {
	return patchMeta(ctx, cs, namespace, name, "labels", key, value)
}

// Annotate 設定一個 annotation；value 為 nil 時刪除它。
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

// Delete 像 kubectl delete pod 那樣刪除一個 Pod：API server 設下 deletionTimestamp，
// 由節點（kwok 或 kubelet）收尾；還沒排程的 Pod 則立刻刪掉。綁在不存在節點上的 Pod
// 沒有人收尾，所以改用 DeleteNow。
//
// Delete deletes a pod as kubectl delete pod does: the API server sets
// deletionTimestamp and the node (kwok or the kubelet) finishes the job; a
// pod not yet scheduled is deleted at once. A pod bound to a node that does
// not exist has nobody to finish it, so it gets DeleteNow instead.
func Delete(ctx context.Context, cs kubernetes.Interface, namespace, name string) error {
	// 綁在不存在的節點上的 Pod（create --node）沒有人會把刪除做完，所以立刻刪掉。
	// A pod bound to a node that does not exist (create --node) has nobody to finish its delete, so delete it at once.
	if p, err := cs.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{}); err == nil &&
		p.Spec.NodeName != "" && !nodeExists(ctx, cs, p.Spec.NodeName) {
		return DeleteNow(ctx, cs, namespace, name)
	}
	return deletePod(ctx, cs, namespace, name, metav1.DeleteOptions{})
}

// DeleteNow 以寬限期 0 刪除一個 Pod（kubectl delete --grace-period=0 --force）：
// API server 自己把它刪掉，不等節點。API server 重新啟動時用它，因為那時 kwok 連不上。
//
// DeleteNow deletes a pod with grace period 0 (kubectl delete
// --grace-period=0 --force): the API server removes it itself, without
// waiting for the node. The API-server restart uses it, because kwok cannot
// reach the server then.
func DeleteNow(ctx context.Context, cs kubernetes.Interface, namespace, name string) error {
	return deletePod(ctx, cs, namespace, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
}

func deletePod(ctx context.Context, cs kubernetes.Interface, namespace, name string, opts metav1.DeleteOptions) error {
	err := cs.CoreV1().Pods(namespace).Delete(ctx, name, opts)
	if err != nil {
		return fmt.Errorf("deleting pod %s/%s: %w", namespace, name, err)
	}
	return nil
}

func nodeExists(ctx context.Context, cs kubernetes.Interface, name string) bool {
	_, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	return err == nil
}

// CreateRunning 建立一個 Pod 並等它跑起來（見 Settle），再確認它還在。
// kwok v0.8.0 刪除 Pod 時只看名字：剛刪掉一個同名的 Pod 之後，kwok 還在處理中的那次刪除
// 可能落在新的 Pod 上。碰到這種情況就再建立一次（最多三次），並在 note 裡說明。
//
// CreateRunning creates a pod, waits for it to run (see Settle), and checks
// it is still there. kwok v0.8.0 deletes pods by name only: right after a pod
// of the same name was deleted, a delete kwok still had in flight can land
// on the new one. When that happens it creates the pod again (three times at
// most) and says so through note.
func CreateRunning(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod, timeout time.Duration, note func(string)) (*corev1.Pod, error) {
	for attempt := 1; ; attempt++ {
		created, err := CreatePod(ctx, cs, pod.DeepCopy())
		if err != nil {
			return nil, err
		}
		if err := Settle(ctx, cs, pod.Namespace, pod.Name, timeout); err != nil {
			return nil, err
		}
		now, err := cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err == nil && now.UID == created.UID {
			return now, nil
		}
		if attempt == 3 {
			return nil, fmt.Errorf("pod %s/%s vanished right after it was created, three times", pod.Namespace, pod.Name)
		}
		if note != nil {
			note(fmt.Sprintf("pod %s/%s vanished right after it was created (a delete of an earlier pod of that name was still in flight in kwok); creating it again", pod.Namespace, pod.Name))
		}
	}
}

// Settle 等一個 Pod 走完這次變化：叢集有節點時，剛建立的 Pod 要等到 Running，
// 刪除中的 Pod 要等到消失；沒有節點（只有 API server）時不必等。上限是 timeout。
//
// Settle waits for a pod to finish its current change: when the cluster has
// nodes, a new pod until it is Running and a pod being deleted until it is
// gone; with no nodes (an API server alone) there is nothing to wait for.
// timeout bounds the wait.
func Settle(ctx context.Context, cs kubernetes.Interface, namespace, name string, timeout time.Duration) error {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil || len(nodes.Items) == 0 {
		return nil
	}
	var last string
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return true, nil
		case err != nil:
			last = err.Error()
			return false, nil
		case p.Spec.NodeName != "" && !nodeExists(ctx, cs, p.Spec.NodeName):
			// 綁到一個不存在的節點：沒有人會讓它跑起來，也沒有人會把刪除做完。
			// Bound to a node that does not exist: nobody will run it, nobody will finish a delete.
			return true, nil
		case p.DeletionTimestamp != nil:
			last = "still being deleted"
			return false, nil
		default:
			last = "phase " + string(p.Status.Phase)
			return p.Status.Phase != corev1.PodPending, nil
		}
	})
	if err != nil {
		return fmt.Errorf("pod %s/%s did not settle within %s (%s)", namespace, name, timeout, last)
	}
	return nil
}

// Value 把字串變成 Label 與 Annotate 需要的 *string；要移除時傳 nil。
//
// Value turns a string into the *string that Label and Annotate take; pass
// nil to remove instead.
func Value(s string) *string { return &s }

// tallyPath 是一個 PodTally 在 API server 上的路徑（步驟 06 的 CRD）。scene 只需要刪除與讀取它，
// 不必為此拉進步驟 06 產生的 clientset。
//
// tallyPath is a PodTally's path on the API server (step 06's CRD). scene
// only deletes and reads one, and needs no generated clientset for that.
func tallyPath(namespace, name string) string {
	return "/apis/lab.informer-walkthrough.github.io/v1alpha1/namespaces/" + namespace + "/podtallies/" + name
}

// DeleteTally 刪除一個 PodTally，等它消失（最多 timeout），回傳它的 UID。有 finalizer 擋著時，API server 只設定
// deletionTimestamp，物件留著，直到放 finalizer 的控制器把它拿掉：等不到時，錯誤說出是哪些 finalizer。
//
// DeleteTally deletes a PodTally, waits until it is gone (at most timeout)
// and returns its UID. With a finalizer on it, the API server only sets
// deletionTimestamp and the object stays until the controller that put the
// finalizer there takes it off: when the wait runs out, the error names the
// finalizers.
func DeleteTally(ctx context.Context, cs kubernetes.Interface, namespace, name string, timeout time.Duration) (types.UID, error) {
	rc := cs.CoreV1().RESTClient()
	get := func(ctx context.Context) (*metav1.PartialObjectMetadata, error) {
		raw, err := rc.Get().AbsPath(tallyPath(namespace, name)).DoRaw(ctx)
		if err != nil {
			return nil, err
		}
		var m metav1.PartialObjectMetadata
		return &m, json.Unmarshal(raw, &m)
	}
	before, err := get(ctx)
	if err != nil {
		return "", fmt.Errorf("deleting podtally %s/%s: %w", namespace, name, err)
	}
	if err := rc.Delete().AbsPath(tallyPath(namespace, name)).Do(ctx).Error(); err != nil {
		return "", fmt.Errorf("deleting podtally %s/%s: %w", namespace, name, err)
	}
	var finalizers []string
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		m, err := get(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		finalizers = m.Finalizers
		return false, nil
	})
	if err != nil && ctx.Err() == nil {
		return "", fmt.Errorf("podtally %s/%s is still there after %s, held by its finalizers %v: is the controller that put them there running?", namespace, name, timeout, finalizers)
	}
	return before.UID, err
}

// SetTallyCount 像另一個寫入者那樣，以 merge patch 把一個 PodTally 的 status.count 改成 n：寫到 status 子資源，
// 不帶 resourceVersion（不會 409），generation 不變。
//
// SetTallyCount sets a PodTally's status.count to n as another writer
// would, with a merge patch: to the status subresource, with no
// resourceVersion (so no 409), leaving the generation as it is.
func SetTallyCount(ctx context.Context, cs kubernetes.Interface, namespace, name string, n int) error {
	body := fmt.Sprintf(`{"status":{"count":%d}}`, n)
	err := cs.CoreV1().RESTClient().Patch(types.MergePatchType).AbsPath(tallyPath(namespace, name), "status").Body([]byte(body)).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("setting podtally %s/%s status.count: %w", namespace, name, err)
	}
	return nil
}

// OwnedConfigMapsGone 等到 namespace 裡沒有 ownerReferences 指向 owner 的 ConfigMap：擁有者消失之後，
// garbage collector（kube-controller-manager）會刪掉它們。它每 30 秒才重新發現一次新的資源種類，
// 所以剛裝好的 CRD 的物件，第一次可能要等到那時。
//
// OwnedConfigMapsGone waits until no ConfigMap in the namespace has an
// ownerReference to owner: once the owner is gone, the garbage collector
// (kube-controller-manager) deletes them. It discovers new kinds of resource
// only every 30 seconds, so for the objects of a CRD just installed the
// first time may take until then.
func OwnedConfigMapsGone(ctx context.Context, cs kubernetes.Interface, namespace string, owner types.UID, timeout time.Duration) ([]string, error) {
	var gone []string
	seen := map[string]bool{}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		left := false
		for _, cm := range list.Items {
			for _, ref := range cm.OwnerReferences {
				if ref.UID == owner {
					left = true
					if !seen[cm.Name] {
						seen[cm.Name] = true
						gone = append(gone, cm.Name)
					}
				}
			}
		}
		return !left, nil
	})
	if err != nil && ctx.Err() == nil {
		return gone, fmt.Errorf("ConfigMaps %v are still there %s after their owner went: is kube-controller-manager (its garbage collector) running?", gone, timeout)
	}
	return gone, err
}

// DeleteConfigMap 刪除一個 ConfigMap，等被刪的那一個消失：有控制器立刻再建一個同名的（步驟 07 的報告），
// 新的那一個 UID 不同，也算。
//
// DeleteConfigMap deletes a ConfigMap and waits until the one deleted is
// gone: when a controller writes a new one of the same name at once (step
// 07's report), the new one has another UID, and that counts too.
func DeleteConfigMap(ctx context.Context, cs kubernetes.Interface, namespace, name string, timeout time.Duration) error {
	cms := cs.CoreV1().ConfigMaps(namespace)
	old, err := cms.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("deleting configmap %s/%s: %w", namespace, name, err)
	}
	if err := cms.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &old.UID}}); err != nil {
		return fmt.Errorf("deleting configmap %s/%s: %w", namespace, name, err)
	}
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		now, err := cms.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return err == nil && now.UID != old.UID, err
	})
}
