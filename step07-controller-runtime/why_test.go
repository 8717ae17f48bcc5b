package main

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	"github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/clientset/versioned"
)

// 情境：演練「這次 Reconcile 為什麼會跑？」（--why，--recount 1s）。每次 Reconcile 開始時說出從上一次以來讓 key
// 排進佇列的東西：第一次是 tally 的新增；一個 Pod 出現時，是那個 Pod 的新增（對應到這個 tally）；什麼都沒變時，
// 是上一次留下的 RequeueAfter；刪除 tally 時，是 generation 加一的那次更新。
//
// The story: the drill "why did this Reconcile run?" (--why, --recount 1s).
// Each Reconcile begins by saying what queued its key since the last one:
// the first time, the tally's add; when a pod appears, that pod's add
// (mapped to this tally); when nothing changed, the RequeueAfter the last
// one left; when the tally is deleted, the update that raised its
// generation.
func TestWhyDrill(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	out := startStep(t, c.Config(), ns, options{why: true, recount: time.Second})
	key := ns + "/app-demo"
	why := "-- podtally: " + key + " reconciled for "
	out.Wait(t, 1, why, "tally OnAdd (generation 1)")
	out.Wait(t, 1, why, "RequeueAfter 1s")
	testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
	out.Wait(t, 1, why, "pod "+ns+"/one OnAdd")
	out.Wait(t, 1, show.Prefix("podtally", "Reconcile", key), "count 0 -> 1")
	if err := versioned.NewForConfigOrDie(c.Config()).LabV1alpha1().PodTallies(ns).Delete(t.Context(), "app-demo", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 1, why, "tally OnUpdate (generation 1 -> 2)")
}
