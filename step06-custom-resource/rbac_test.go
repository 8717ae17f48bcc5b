package main

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// shippedRBAC 讀 rbac/controller.yaml：一個 ClusterRole 與一個 Role。
//
// shippedRBAC reads rbac/controller.yaml: one ClusterRole and one Role.
func shippedRBAC(t *testing.T) (*rbacv1.ClusterRole, *rbacv1.Role) {
	t.Helper()
	b, err := os.ReadFile("rbac/controller.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := bytes.Split(b, []byte("\n---\n"))
	if len(docs) != 2 {
		t.Fatalf("rbac/controller.yaml has %d documents; want 2", len(docs))
	}
	cr, role := &rbacv1.ClusterRole{}, &rbacv1.Role{}
	if err := yaml.UnmarshalStrict(docs[0], cr); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(docs[1], role); err != nil {
		t.Fatal(err)
	}
	return cr, role
}

// serviceAccountConfig 建立一個 ServiceAccount，把 ClusterRole 與 Role 綁給它，回傳以它的 token 連線的設定。
//
// serviceAccountConfig creates a ServiceAccount, binds the ClusterRole and
// the Role to it, and returns a config that connects with its token.
func serviceAccountConfig(t *testing.T, c *testenv.Cluster, ns string, cr *rbacv1.ClusterRole, role *rbacv1.Role) *rest.Config {
	t.Helper()
	ctx := t.Context()
	cs := c.Client()
	sa, config := testenv.ServiceAccount(t, c, ns, "tally-controller")
	subject := []rbacv1.Subject{sa}
	cr = cr.DeepCopy()
	cr.Name += "-" + ns
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, cr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: cr.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: cr.Name},
		Subjects:   subject,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), cr.Name, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(context.Background(), cr.Name, metav1.DeleteOptions{})
	})
	role = role.DeepCopy()
	role.Namespace = ns
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   subject,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return config()
}

// 情境：控制器以一個 ServiceAccount 執行，它只綁了 rbac/controller.yaml 裡的權限：示範用的 tally 由管理員先建立
// （角色沒有 create；沒有 tally 時是一行錯誤），之後照常運作。
// 拿掉 Pod 的 watch 動詞之後，client-go v0.37.2 的樣子是：串流式 watch 得到 403，退回 LIST（成功，
// informer 因此同步、worker 啟動），接著的 WATCH 又是 403；Reflector 退避（第一次等 0.8 到 1.6 秒，每次加倍，最多 30 到 60 秒，
// 大約每兩分鐘又從第一次的長度重來）之後再 LIST、再 WATCH、再 403，一直下去。變化只能靠下一次 LIST 到達：這就是學習者在真實叢集上
// 遇到的 403 迴圈，log 每一輪印一次 "Failed to watch"。
//
// The story: the controller runs as a ServiceAccount bound to exactly what
// rbac/controller.yaml grants: an admin creates the demo tally first (the
// role has no create; without the tally it is one error line), and then it
// works. With the watch verb removed from
// pods, client-go v0.37.2 does this: the streaming watch gets 403, it falls
// back to a LIST (which succeeds, so the informer syncs and the workers
// start), and the WATCH after it gets 403 again; the Reflector backs off
// (0.8–1.6 s at first, doubling, up to 30–60 s, and starting over about every
// two minutes), lists, watches, gets 403, and so on.
// Changes arrive only with the next LIST: the 403 loop learners meet on real
// clusters, with one "Failed to watch" in the log each round.
func TestLeastPrivilege(t *testing.T) {
	c := testenv.Plain(t)
	cr, role := shippedRBAC(t)
	if err := ensureCRD(t.Context(), apiextensionsFor(c), &testenv.Output{}); err != nil {
		t.Fatal(err)
	}

	t.Run("exactly-the-role", func(t *testing.T) {
		ns := c.Namespace(t)
		cfg := serviceAccountConfig(t, c, ns, cr, role)
		// 角色不能建立 tally：還沒有 app-demo 時，一行錯誤指出怎麼辦。 / The role may not create tallies: with no app-demo yet, one error says what to do.
		err := run(t.Context(), cfg, ns, options{workers: 1, demoTally: true}, &testenv.Output{})
		if err == nil || !strings.Contains(err.Error(), "is forbidden") || !strings.Contains(err.Error(), "--demo-tally=false") {
			t.Fatalf("run as the ServiceAccount with no app-demo: err = %v; want the 403 and a hint at --demo-tally=false", err)
		}
		demo := &labv1alpha1.PodTally{ObjectMeta: metav1.ObjectMeta{Name: "app-demo", Namespace: ns}, Spec: labv1alpha1.PodTallySpec{Selector: "app=demo"}}
		if _, err := tallyClient(t, c).LabV1alpha1().PodTallies(ns).Create(t.Context(), demo, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// 以學習者的預設旗標執行（--demo-tally 開著）：tally 已經在了，就照常運作。
		// With a learner's default flags (--demo-tally on): the tally is there already, so it runs as usual.
		out := startStep(t, cfg, ns, options{demoTally: true, retryOnConflict: true})
		out.Wait(t, 1, "PodTally "+ns+"/app-demo is already there")
		out.Wait(t, 1, "watching from there")
		testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
		tallyStatus(t, c, ns, "app-demo", "count 1, written by the ServiceAccount", countIs(1))
		if out.Count("FAILED") != 0 {
			t.Errorf("a sync failed under the shipped role:\n%s", out.String())
		}
	})

	t.Run("without-watch-on-pods", func(t *testing.T) {
		ns := c.Namespace(t)
		less := role.DeepCopy()
		for i, r := range less.Rules {
			if slices.Contains(r.Resources, "pods") {
				less.Rules[i].Verbs = slices.DeleteFunc(slices.Clone(r.Verbs), func(v string) bool { return v == "watch" })
			}
		}
		cfg := serviceAccountConfig(t, c, ns, cr, less)
		trace := &testenv.Output{}
		cfg.Wrap(cli.Tracer(trace))
		out := startStep(t, cfg, ns, options{})
		// LIST 成功就算同步：控制器啟動了，卻沒有 watch。 / A successful LIST is a sync: the controller starts without a watch.
		out.Wait(t, 1, "watching from there")
		testenv.CreatePod(t, c.Client(), ns, "late", map[string]string{"app": "demo"})
		// 這個 Pod 只能經由下一次重新 LIST 到達。 / This pod can only arrive through the next relist.
		out.Wait(t, 1, show.Prefix("pods", "OnAdd", ns+"/late"))
		testenv.Poll(t, "three refused watches of pods", func() bool { return countForbiddenWatches(trace.String()) >= 3 }, trace)
		lists, watches := 0, 0
		for line := range strings.Lines(trace.String()) {
			switch {
			case !strings.Contains(line, "/pods?"):
			case strings.Contains(line, "watch=true"):
				watches++
				if !strings.HasSuffix(strings.TrimSpace(line), "-> 403") {
					t.Errorf("a watch of pods was not refused: %s", line)
				}
			case strings.HasSuffix(strings.TrimSpace(line), "-> 200"):
				lists++
			}
		}
		if lists < 2 {
			t.Errorf("%d successful LISTs of pods (want the first and at least one relist after a refused watch); the trace:\n%s", lists, trace.String())
		}
	})
}

// countForbiddenWatches 數出 trace 裡被拒絕的 Pod watch。 / countForbiddenWatches counts the refused pod watches in a trace.
func countForbiddenWatches(trace string) int {
	n := 0
	for line := range strings.Lines(trace) {
		if strings.Contains(line, "/pods?") && strings.Contains(line, "watch=true") && strings.HasSuffix(strings.TrimSpace(line), "-> 403") {
			n++
		}
	}
	return n
}
