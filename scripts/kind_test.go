//go:build kind

// 這些測試在真的 kind 叢集上執行腳本與每個步驟：Pod 真的在 kubelet 上跑。scripts/test.sh 以
// -tags kind 執行它們，並用 INFORMER_LAB_KIND_NODE_IMAGE 告訴它們節點映像檔（沒有就失敗，不會略過）。
//
// These tests run the scripts and every step on a real kind cluster, where
// pods really run on a kubelet. scripts/test.sh runs them with -tags kind and
// names the node image in INFORMER_LAB_KIND_NODE_IMAGE (without it they fail;
// they never skip).
package scripts_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：Docker 有回應時，cluster-up.sh（CLUSTER=auto）選 kind 並說明原因；叢集像真的一樣；
// 導覽在它上面跑完每一步，每一步都看到 demo 從 Pending 變成 Running；重新啟動 kube-apiserver 的 container 後，
// 步驟 01 得到 410 並重新 List，或遇上 403 以一行結束；cluster-down.sh 不留下任何 container、目錄或 context。
//
// The story: with Docker answering, cluster-up.sh (CLUSTER=auto) picks kind
// and says why; the cluster behaves like a real one; the walkthrough runs
// every step on it, and every step sees demo go from Pending to Running;
// after the kube-apiserver container restarts, step 01 gets a 410 and lists
// again, or meets a 403 and ends with one line; cluster-down.sh leaves no
// container, directory or context.
func TestClusterOnKind(t *testing.T) {
	image := os.Getenv("INFORMER_LAB_KIND_NODE_IMAGE")
	if image == "" {
		t.Fatal("the kind tests need INFORMER_LAB_KIND_NODE_IMAGE, the node image to use (scripts/test.sh sets it)")
	}
	const name = "lab-kind"
	node := name + "-control-plane"
	l := newLabEnv(t, name, "KIND_NODE_IMAGE="+image)
	start := time.Now()
	out := l.mustRun("cluster-up.sh")
	t.Logf("cluster-up.sh took %s", time.Since(start).Round(time.Second))
	if !strings.Contains(out, "a Docker daemon answers and kind's node image is at hand, so using kind") {
		t.Errorf("cluster-up.sh did not say why it chose kind:\n%s", out)
	}
	cgroupV1 := dockerInfo(t, "{{.CgroupVersion}}") == "1"
	if said := strings.Contains(out, "failCgroupV1: false"); said != cgroupV1 {
		t.Errorf("the Docker host's cgroup v1 is %v, but cluster-up.sh mentioning failCgroupV1 is %v:\n%s", cgroupV1, said, out)
	}
	if cfg, err := clientcmd.LoadFromFile(l.kubeconfig); err != nil || cfg.CurrentContext != "kind-"+name {
		t.Fatalf("current context = %v, %v; want kind-%s", cfg.CurrentContext, err, name)
	}
	cs := kubernetes.NewForConfigOrDie(l.restConfig())

	t.Run("behaves like a cluster", func(t *testing.T) {
		if _, err := scene.Create(t.Context(), cs, "default", "hello", nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = scene.DeleteNow(context.Background(), cs, "default", "hello") })
		behavesLikeACluster(t, cs, node)
	})

	t.Run("the addons kubeadm and kind install", func(t *testing.T) {
		addonsReady(t, cs)
	})

	t.Run("second cluster-up.sh", func(t *testing.T) {
		out := l.mustRun("cluster-up.sh")
		if !strings.Contains(out, "kind cluster '"+name+"' is already up") {
			t.Errorf("second cluster-up.sh said:\n%s", out)
		}
	})

	t.Run("walkthrough", func(t *testing.T) {
		out := l.mustRun("walkthrough.sh", "SCENE_PAUSE=0s")
		for _, section := range stepSections(t, out) {
			kubeletWritesMore(t, section, node)
		}
	})

	t.Run("restart-apiserver.sh", func(t *testing.T) {
		cmd := exec.Command("bash", "restart-apiserver.sh", "--delete", "demo")
		cmd.Env = l.env
		b, err := cmd.CombinedOutput()
		code, out := cmd.ProcessState.ExitCode(), string(b)
		if err == nil || code == 0 || strings.Count(out, "error:") != 1 || !strings.Contains(out, "--delete needs the local cluster") {
			t.Errorf("restart-apiserver.sh --delete on kind: exit %d, want one error line:\n%s", code, out)
		}
		restartOnKind(t, l, cs)
	})

	out = l.mustRun("cluster-down.sh")
	if left := dockerPS(t, "label=io.x-k8s.kind.cluster="+name); left != "" {
		t.Errorf("containers left after cluster-down.sh: %s\n%s", left, out)
	}
	if _, err := os.Stat(l.state); !os.IsNotExist(err) {
		t.Errorf("state directory %s still there after cluster-down.sh (%v)", l.state, err)
	}
	if cfg, err := clientcmd.LoadFromFile(l.kubeconfig); err != nil || cfg.Contexts["kind-"+name] != nil || cfg.CurrentContext != "" {
		t.Errorf("context still in the kubeconfig after cluster-down.sh (%v):\n%s", err, out)
	}
}

// addonsReady 等 kubeadm 與 kind 裝的附加元件都 Ready：CoreDNS（它的 readiness probe 問的是 ready 外掛，
// kubernetes 外掛跟 API server 同步之後才會通過）、kindnetd 與 local-path-provisioner。上游的節點映像檔本來就如此；
// 從原始碼建的映像檔（scripts/ci/kind-node）自己建置這三個程式，這個測試確認它們真的能用。
//
// addonsReady waits for the addons kubeadm and kind install to be Ready:
// CoreDNS (its readiness probe asks the ready plugin, which passes only once
// the kubernetes plugin has synced with the API server), kindnetd and
// local-path-provisioner. The upstream node image has that anyway; the image
// built from source (scripts/ci/kind-node) builds those three programs itself,
// and this test shows they work.
func addonsReady(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	addons := []struct{ namespace, selector string }{
		{"kube-system", "k8s-app=kube-dns"},
		{"kube-system", "app=kindnet"},
		{"local-path-storage", "app=local-path-provisioner"},
	}
	for _, a := range addons {
		var last string
		testenv.PollWithin(t, 2*time.Minute, 200*time.Millisecond, a.selector+" pods in "+a.namespace+" to be Ready; last seen:", func() bool {
			pods, err := cs.CoreV1().Pods(a.namespace).List(t.Context(), metav1.ListOptions{LabelSelector: a.selector})
			switch {
			case err != nil:
				last = err.Error()
				return false
			case len(pods.Items) == 0:
				last = "no pods"
				return false
			}
			for _, p := range pods.Items {
				if !podReady(&p) {
					last = fmt.Sprintf("pod %s is %s, not Ready", p.Name, p.Status.Phase)
					return false
				}
			}
			return true
		}, testenv.Describe(func() string { return last }))
	}
}

// podReady 在 Pod 的 Ready condition 為 True 時成立。 / podReady is true when the pod's Ready condition is True.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// onKind 是一步在 kind 上的 demo 必須依序出現的行（N 代表節點名稱），以及 kubelet 額外的「只有 status 變了」的
// 更新長什麼樣子。每一步把它寫在自己的 testdata/kind.txt：README 說的 kind 跟本機叢集的差別，就是這些檔。
//
// onKind is what one step's demo must show on kind, in order (N stands for the
// node's name), and what the kubelet's extra status-only updates look like.
// Each step writes it in its own testdata/kind.txt: the difference between
// kind and the local cluster that the READMEs describe is those files.
type onKind struct {
	milestones []string
	// optional 標出哪些 milestone 可以不出現：worker 同步得比下一個事件晚時，幾個變化併成一次同步，
	// 中間的狀態就不會印出來（這正是步驟 04 教的）。它們出現時仍然要照順序。
	// optional marks the milestones that may be missing: when the worker syncs after the next event has come, the
	// changes merge into one sync and the state in between is never printed (what step 04 teaches). When they do
	// show, they must still be in order.
	optional []bool
	// statusOnly 是每個只改 status 的更新都會印出的一行；在第三行（Running）之前，它至少要出現 atLeast 次。
	// 本機叢集只有兩個（排程與 Running），kind 上 kubelet 只改了 status 的更新讓它更多。
	// statusOnly is a line every status-only update prints; before the third milestone (Running) it must appear at
	// least atLeast times. The local cluster has only two (scheduling and Running); on kind the kubelet's
	// status-only updates make more.
	statusOnly string
	atLeast    int
}

// readOnKind 讀一步的 testdata/kind.txt：# 開頭的是註解，"status-only N 行" 是 statusOnly，其餘每一行依序是 milestone；
// 以 "maybe " 開頭的 milestone 可以不出現。
//
// readOnKind reads a step's testdata/kind.txt: lines starting with # are
// comments, "status-only N line" gives statusOnly, and every other line is a
// milestone, in order; a milestone starting with "maybe " may be missing.
func readOnKind(t *testing.T, step string) onKind {
	t.Helper()
	path := filepath.Join("..", step, "testdata", "kind.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: every step says in testdata/kind.txt what its demo shows on kind", err)
	}
	var want onKind
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "status-only "):
			n, rest, _ := strings.Cut(strings.TrimPrefix(line, "status-only "), " ")
			if want.atLeast, err = strconv.Atoi(n); err != nil {
				t.Fatalf("%s: %q: %v", path, line, err)
			}
			want.statusOnly = rest
		default:
			rest, maybe := strings.CutPrefix(line, "maybe ")
			want.milestones = append(want.milestones, rest)
			want.optional = append(want.optional, maybe)
		}
	}
	if len(want.milestones) < 3 || want.statusOnly == "" || want.optional[2] {
		t.Fatalf("%s: want a status-only line and at least three milestones, the third not optional", path)
	}
	return want
}

// kubeletWritesMore 檢查一步在 kind 上的 demo：它的 kind.txt 裡的行依序出現，而且在 Running 之前，
// kubelet 至少寫了那麼多次只有 status 變了的更新。
//
// kubeletWritesMore checks one step's demo on kind: the lines of its kind.txt
// come in order, and before Running the kubelet wrote at least that many
// status-only updates.
func kubeletWritesMore(t *testing.T, s section, node string) {
	t.Helper()
	want := readOnKind(t, s.step)
	n := strings.NewReplacer("node=N ", "node="+node+" ", "set to N", "set to "+node)
	var milestones, present []string
	for i, m := range want.milestones {
		line := n.Replace(m) + "\n"
		milestones = append(milestones, line)
		if !want.optional[i] || strings.Contains(s.text, line) {
			present = append(present, line)
		}
	}
	testenv.WantOrder(t, s.text, present...)
	// 一個事件也沒有漏掉時（WantOrder 通過），數一數第三個事件之前的更新。
	// With no event missing (WantOrder passed), count the updates before the third event.
	before, _, _ := strings.Cut(s.text, milestones[2])
	if got := strings.Count(before, n.Replace(want.statusOnly)+"\n"); got < want.atLeast {
		t.Errorf("%s on kind: %d line(s) %q before %q, want at least %d (the kubelet's status-only updates):\n%s",
			s.step, got, n.Replace(want.statusOnly), milestones[2], want.atLeast, s.text)
	}
}

// restartOnKind 讓步驟 01 與 02 看著叢集，重新啟動 kube-apiserver 的 container。kind 的 kubeconfig 使用者
// kubernetes-admin 的權限來自 RBAC 的 ClusterRoleBinding，剛啟動的 kube-apiserver 在授權快取就緒之前
// 回應 403 Forbidden；本機叢集的使用者在 system:masters 群組，不經 RBAC，所以沒有這段空窗。
// 步驟 01 只重試「沒有回應」，它不是在空窗後重新連上、得到 410 並重新 List，就是遇上 403 而以一行結束；
// 步驟 02 的 Reflector 兩種情況都撐過去：重新 List，之後的變化照常送達。
//
// restartOnKind has steps 01 and 02 watch the cluster and restarts the
// kube-apiserver container. kind's kubeconfig user, kubernetes-admin, gets its
// rights from an RBAC ClusterRoleBinding, and a kube-apiserver that has just
// started answers 403 Forbidden until its authorization cache is ready; the
// local cluster's user is in system:masters, which skips RBAC, so it has no
// such window. Step 01 retries only when no answer comes: it either reconnects
// after the window, gets a 410 and lists again, or meets the 403 and ends with
// one line. Step 02's Reflector rides out both: it lists again, and later
// changes arrive as usual.
func restartOnKind(t *testing.T, l *lab, cs kubernetes.Interface) {
	ctx := t.Context()
	if _, err := scene.Create(ctx, cs, "default", "before", map[string]string{"app": "demo"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = scene.DeleteNow(context.Background(), cs, "default", "before") })
	out01, exited01 := startOnKind(t, l, "step01-listwatcher")
	out02, _ := startOnKind(t, l, "step02-listwatch-from-client")
	out01.Wait(t, 1, "watching from there")
	out02.Wait(t, 1, "watching from there")
	l.mustRun("restart-apiserver.sh")
	if _, err := scene.Create(ctx, cs, "default", "after", map[string]string{"app": "demo"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = scene.DeleteNow(context.Background(), cs, "default", "after") })

	// Reflector 的退避可能比停機還久，所以「unreachable」與「Failed to watch」不一定出現；一定有的是
	// 第二次 List。pod after 可能在它之前就建立了（於是出現在 Replace 裡，排在那次 Replace 的
	// 「carried」那一行之前），也可能之後才建立（一個 Add，在那一行之後）。所以只要求：它在第一次
	// Replace 之後，而且第二次 Replace 一定會來。
	// The Reflector's backoff may outlast the outage, so "unreachable" and "Failed to watch" may not show; what always
	// comes is a second list. Pod after may exist before it (then it comes in the Replace, printed before that
	// Replace's "carried" line) or only after it (an Add, after that line). So all this asks is that it comes after the
	// first Replace, and that a second Replace comes.
	out02.Wait(t, 1, "default/after ", "phase=Running")
	out02.Wait(t, 2, "-- Replace carried resourceVersion=")
	testenv.WantOrder(t, out02.String(),
		"-- Replace carried resourceVersion=",
		"default/after ")

	// 步驟 01：兩種結果之一，而且只會是這兩種。 / Step 01: one of the two outcomes, and nothing else.
	ended := false
	testenv.Poll(t, "step 01 to exit or to see pod after; its output so far:", func() bool {
		select {
		case <-exited01:
			ended = true
			return true
		default:
			return out01.Count(show.Prefix("watch", "MODIFIED", "default/after")) > 0
		}
	}, out01)
	got := out01.String()
	if ended {
		// 403 可能落在重新 watch 時，也可能落在 410 之後的重新 List。 / The 403 may meet the new watch, or the new list after a 410.
		if !regexp.MustCompile(`pods is forbidden: User "kubernetes-admin" cannot (watch|list) resource "pods"`).MatchString(lastLine(got)) {
			t.Errorf("step 01 exited after the restart, but not with the 403:\n%s", got)
		}
		t.Logf("step 01 met the 403 window and ended with one line")
		return
	}
	testenv.WantOrder(t, got, ": 410 Gone (too old resource version: ", "-- list returned resourceVersion=", show.Prefix("watch", "ADDED", "default/after"))
	t.Logf("step 01 reconnected after the 403 window and got a 410")
}

// startOnKind 建置並在背景執行一個步驟，使用這個 lab 叢集的 kubeconfig。 / startOnKind builds a step and runs it in the background against the lab's kubeconfig.
func startOnKind(t *testing.T, l *lab, step string) (*testenv.Output, <-chan struct{}) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), step)
	if out, err := exec.Command("go", "build", "-o", bin, "../"+step).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := &testenv.Output{}
	cmd := testenv.Command(bin, "--kubeconfig", l.kubeconfig)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	return out, exited
}

func dockerInfo(t *testing.T, format string) string {
	t.Helper()
	out, err := exec.Command("docker", "info", "--format", format).Output()
	if err != nil {
		t.Fatalf("docker info: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func dockerPS(t *testing.T, filter string) string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-a", "--quiet", "--filter", filter).Output()
	if err != nil {
		t.Fatalf("docker ps: %v", err)
	}
	return strings.TrimSpace(string(out))
}
