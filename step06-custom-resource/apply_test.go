package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
	"github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/clientset/versioned"
)

// auditorStatus 是另一個寫入者（field manager auditor）以 server-side apply 送出的 status。
//
// auditorStatus is the status another writer (field manager auditor) sends
// with server-side apply.
func auditorStatus(ns, status string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"lab.informer-walkthrough.github.io/v1alpha1","kind":"PodTally","metadata":{"name":"app-demo","namespace":%q},"status":%s}`, ns, status)
}

// conditionTypes 回傳 tally 的 condition 種類，排序過。 / conditionTypes returns the tally's condition types, sorted.
func conditionTypes(t *labv1alpha1.PodTally) []string {
	var types []string
	for _, c := range t.Status.Conditions {
		types = append(types, c.Type)
	}
	slices.Sort(types)
	return types
}

// 情境：server-side apply 的演練（--apply，再加上 --stale-write 這個錯誤）。
//  1. 從留著的舊複本寫 status：Update 會得到 409（見 TestStaleWrites），apply 不帶 resourceVersion，兩次都成功。
//  2. 另一個 field manager（auditor）apply 一個不同 type 的 condition：欄位不重疊，沒有衝突；控制器下一次 apply 之後，
//     Ready 與 Audited 都還在。
//  3. auditor apply 控制器擁有的 status.count：不加 force 得到 409，錯誤訊息指出擁有者是 podtally-controller；加了 force 就拿走這個欄位。
//     控制器下一次 apply（它總是 force）再把 count 拿回來，數字又是對的。
//  4. 對照：一個 merge patch 只送 Ready 這個 condition，就把整個 conditions 清單換掉，auditor 的 condition 不見了。
//
// The story: the server-side apply drill (--apply, with the --stale-write
// mistake on top).
//  1. Status written from a kept old copy: Update would get 409 (see
//     TestStaleWrites); apply sends no resourceVersion, and both writes succeed.
//  2. Another field manager (auditor) applies a condition of another type:
//     the fields do not overlap, no conflict; after the controller's next
//     apply, Ready and Audited are both there.
//  3. The auditor applies status.count, which the controller owns: without
//     force, 409, and the error names the owner podtally-controller; with
//     force it takes the field. The controller's next apply (it always
//     forces) takes count back, and the number is right again.
//  4. For comparison: a merge patch sending only the Ready condition
//     replaces the whole conditions list, and the auditor's condition is gone.
func TestApplyDrill(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	out := startStep(t, c.Config(), ns, options{apply: true, staleWrite: true, demoTally: true})
	out.Wait(t, 1, "watching from there")
	tallies := versioned.NewForConfigOrDie(c.Config()).LabV1alpha1().PodTallies(ns)
	waitCount := func(n int32) *labv1alpha1.PodTally {
		t.Helper()
		var got *labv1alpha1.PodTally
		testenv.Poll(t, fmt.Sprintf("status.count %d on the server", n), func() bool {
			var err error
			got, err = tallies.Get(t.Context(), "app-demo", metav1.GetOptions{})
			return err == nil && got.Status.Count == n
		})
		return got
	}

	testenv.CreatePod(t, cs, ns, "one", map[string]string{"app": "demo"})
	waitCount(1)
	testenv.CreatePod(t, cs, ns, "two", map[string]string{"app": "demo"})
	waitCount(2)
	out.Wait(t, 1, "ApplyStatus from the kept copy: count 0 -> 2", "(field manager "+fieldManager+")")
	if n := out.Count("409"); n != 0 {
		t.Errorf("%d lines mention 409; apply sends no resourceVersion, so a stale copy cannot conflict:\n%s", n, out.String())
	}

	apply := func(status string, force bool) error {
		opts := metav1.PatchOptions{FieldManager: "auditor"}
		if force {
			opts.Force = &force
		}
		_, err := tallies.Patch(t.Context(), "app-demo", types.ApplyPatchType, auditorStatus(ns, status), opts, "status")
		return err
	}
	audited := `{"conditions":[{"type":"Audited","status":"True","reason":"Checked","message":"seen by the auditor","lastTransitionTime":"2026-01-01T00:00:00Z"}]}`
	if err := apply(audited, false); err != nil {
		t.Fatalf("the auditor's own condition: %v; fields of another owner's list entry should not conflict", err)
	}
	testenv.CreatePod(t, cs, ns, "three", map[string]string{"app": "demo"})
	if got := conditionTypes(waitCount(3)); !slices.Equal(got, []string{"Audited", "Ready"}) {
		t.Errorf("conditions after the controller's next apply: %v; want [Audited Ready]", got)
	}

	err := apply(`{"count":99}`, false)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), fieldManager) {
		t.Fatalf("the auditor applying status.count without force: %v; want 409 naming %s", err, fieldManager)
	}
	if err := apply(`{"count":99}`, true); err != nil {
		t.Fatal(err)
	}
	waitCount(99)
	testenv.CreatePod(t, cs, ns, "four", map[string]string{"app": "demo"})
	waitCount(4)

	ready := `{"status":{"conditions":[{"type":"Ready","status":"True","reason":"Counted","message":"4 pods match","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`
	merged, err := tallies.Patch(t.Context(), "app-demo", types.MergePatchType, []byte(ready), metav1.PatchOptions{FieldManager: "merger"}, "status")
	if err != nil {
		t.Fatal(err)
	}
	if got := conditionTypes(merged); !slices.Equal(got, []string{"Ready"}) {
		t.Errorf("conditions after a merge patch of the list: %v; want [Ready] alone: a merge patch replaces the whole list", got)
	}
}
