// 這些測試像工作坊的講者一樣執行腳本：建立本機叢集、再執行一次、拆掉它、跑完整個導覽。
// 每個測試用自己的叢集名稱、狀態目錄與 kubeconfig，不會碰到使用者自己的叢集。
//
// These tests run the scripts as a workshop host would: bring the local
// cluster up, run it again, take it down, run the whole walkthrough. Each test
// uses its own cluster name, state directory and kubeconfig, so the user's own
// cluster is never touched.
package scripts_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
)

// lab 是一個隔離的叢集設定：名稱、狀態目錄、kubeconfig，以及一個假的 docker
// （它的 daemon 永遠不回應），讓結果不受這台機器有沒有 Docker 影響。
//
// lab is an isolated cluster setting: name, state directory, kubeconfig, and
// a fake docker whose daemon never answers, so the outcome does not depend on
// whether this machine has Docker.
//
// lab 的叢集各用自己的名稱、狀態目錄、kubeconfig，以及系統分配的閒置連接埠，所以各用一個 lab 的測試可以同時執行
// （t.Parallel）：這個套件最慢的幾個測試大多在等叢集與步驟，不是在用 CPU。
// lab clusters each have their own name, state directory, kubeconfig and a
// free port the system picks, so tests that each use their own lab can run
// in parallel (t.Parallel): this package's slowest tests mostly wait on clusters and
// steps rather than use the CPU.
type lab struct {
	t          *testing.T
	name       string
	state      string
	kubeconfig string
	env        []string
}

func newLab(t *testing.T, name string) *lab {
	fakeBin := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(fakeBin, 0o755); err != nil {
		t.Fatal(err)
	}
	fakeDocker := "#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(fakeBin, "docker"), []byte(fakeDocker), 0o755); err != nil {
		t.Fatal(err)
	}
	return newLabEnv(t, name, "PATH="+fakeBin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// restConfig 讀這個 lab 的 kubeconfig（cluster-up.sh 寫的那一份）。
//
// restConfig reads the lab's kubeconfig, the one cluster-up.sh wrote.
func (l *lab) restConfig() *rest.Config {
	l.t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", l.kubeconfig)
	if err != nil {
		l.t.Fatal(err)
	}
	return cfg
}

// newLabEnv 跟 newLab 一樣，但用這台機器上真正的 docker，再加上 env 裡的設定。
//
// newLabEnv is newLab with this machine's real docker, plus the settings in env.
func newLabEnv(t *testing.T, name string, env ...string) *lab {
	dir := t.TempDir()
	l := &lab{t: t, name: name, state: filepath.Join(dir, "state"), kubeconfig: filepath.Join(dir, "kube", "config")}
	l.env = append(os.Environ(),
		"CLUSTER_NAME="+name,
		"INFORMER_LAB_STATE_DIR="+l.state,
		"KUBECONFIG="+l.kubeconfig,
		"CLUSTER=",
		"LOCAL_PORT=",
	)
	l.env = append(l.env, env...)
	t.Cleanup(func() {
		if _, err := os.Stat(l.state); err == nil {
			l.run("cluster-down.sh")
		}
	})
	return l
}

// run 執行一個腳本，回傳結束碼與合併的輸出。
//
// run runs a script and returns its exit code and combined output.
func (l *lab) run(script string, env ...string) (int, string) {
	l.t.Helper()
	return l.runArgs(script, nil, env...)
}

// runArgs 跟 run 一樣，但帶著參數。
//
// runArgs is run with arguments.
func (l *lab) runArgs(script string, args []string, env ...string) (int, string) {
	l.t.Helper()
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = append(append([]string(nil), l.env...), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	} else if err != nil {
		l.t.Fatal(err)
	}
	return code, string(out)
}

func (l *lab) mustRun(script string, env ...string) string {
	l.t.Helper()
	code, out := l.run(script, env...)
	if code != 0 {
		l.t.Fatalf("%s exited %d:\n%s", script, code, out)
	}
	return out
}

// processes 回傳命令列含有狀態目錄的行程（etcd、kube-apiserver、localcluster）。
//
// processes returns the processes whose command line contains the state
// directory (etcd, kube-apiserver, localcluster).
func (l *lab) processes() string {
	out, _ := exec.Command("pgrep", "-a", "-f", l.state+"/").Output()
	return strings.TrimSpace(string(out))
}

// 情境：沒有 Docker 時，cluster-up.sh（CLUSTER=auto）選擇本機叢集並說明原因；
// 之後 kubeconfig 裡有一個目前的 context、權限 0600，/readyz 回應 ok，而且叢集像真的一樣：
// Pod 被排程、變成 Running，新 namespace 有 default ServiceAccount，Deployment 的 Pod 會跑，
// namespace 刪得掉。第二次執行什麼都不做；cluster-down.sh 不留下任何行程、目錄或 context；
// 再執行一次也無妨。
//
// The story: without Docker, cluster-up.sh (CLUSTER=auto) picks the local
// cluster and says why; the kubeconfig then has a current context with mode
// 0600, /readyz answers ok, and the cluster behaves like a real one: a pod
// gets scheduled and goes Running, a new namespace gets its default
// ServiceAccount, a Deployment's pods run, and the namespace can be deleted.
// A second run does nothing; cluster-down.sh leaves no process, directory or
// context; running it again is harmless.
func TestLocalClusterUpAndDown(t *testing.T) {
	t.Parallel()
	l := newLab(t, "lab-updown")
	out := l.mustRun("cluster-up.sh")
	if !strings.Contains(out, "no Docker daemon answers, so using the local cluster") {
		t.Errorf("cluster-up.sh did not say why it chose local:\n%s", out)
	}
	// 最後的提示照抄就能用：帶著這次設定的 CLUSTER_NAME 與狀態目錄。 / The closing hint works as written: it carries this run's CLUSTER_NAME and state directory.
	if down := "'INFORMER_LAB_STATE_DIR=" + l.state + " CLUSTER_NAME=lab-updown scripts/cluster-down.sh' when you are done"; !strings.Contains(out, down) {
		t.Errorf("cluster-up.sh's last line does not name %s:\n%s", down, out)
	}

	cfg, err := clientcmd.LoadFromFile(l.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "local-lab-updown" {
		t.Errorf("current context = %q; want local-lab-updown", cfg.CurrentContext)
	}
	if fi, err := os.Stat(l.kubeconfig); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	cs := kubernetes.NewForConfigOrDie(l.restConfig())
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(t.Context())
	if err != nil || string(body) != "ok" {
		t.Fatalf("/readyz = %q, %v; want ok", body, err)
	}
	if _, err := scene.Create(t.Context(), cs, "default", "hello", nil); err != nil {
		t.Fatalf("creating a pod in the default namespace: %v", err)
	}
	behavesLikeACluster(t, cs, "kwok-node-0")
	restartDeletes(t, l, cs)

	start := time.Now()
	out = l.mustRun("cluster-up.sh")
	if !strings.Contains(out, "already up; nothing to do") || time.Since(start) > 10*time.Second {
		t.Errorf("second cluster-up.sh took %s and said:\n%s", time.Since(start), out)
	}
	// Docker 在本機叢集起來之後才開始回應：自動選擇沿用已經在的叢集，不失敗。
	// Docker starts answering after the local cluster came up: the auto choice keeps the cluster that is there, no failure.
	answering := t.TempDir()
	if err := os.WriteFile(filepath.Join(answering, "docker"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out = l.mustRun("cluster-up.sh", "PATH="+answering+string(os.PathListSeparator)+os.Getenv("PATH"))
	if !strings.Contains(out, "a local cluster named 'lab-updown' is already there, so using it") || !strings.Contains(out, "nothing to do") {
		t.Errorf("with Docker answering, cluster-up.sh did not keep the local cluster:\n%s", out)
	}

	start = time.Now()
	out = l.mustRun("cluster-down.sh")
	// 乾淨的停止不必動用 SIGKILL：localcluster 收到 SIGTERM 就會停掉 kube-apiserver 與 etcd。
	// A clean stop needs no SIGKILL: on SIGTERM localcluster stops kube-apiserver and etcd.
	if strings.Contains(out, "SIGKILL") || time.Since(start) > 15*time.Second {
		t.Errorf("cluster-down.sh took %s and said:\n%s", time.Since(start), out)
	}
	if ps := l.processes(); ps != "" {
		t.Errorf("processes left after cluster-down.sh:\n%s", ps)
	}
	if _, err := os.Stat(l.state); !os.IsNotExist(err) {
		t.Errorf("state directory %s still there after cluster-down.sh (%v)", l.state, err)
	}
	cfg, err = clientcmd.LoadFromFile(l.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Contexts["local-lab-updown"]; ok || cfg.CurrentContext != "" {
		t.Errorf("context still in the kubeconfig after cluster-down.sh:\n%s", out)
	}
	if out := l.mustRun("cluster-down.sh"); !strings.Contains(out, "nothing to do") {
		t.Errorf("second cluster-down.sh said:\n%s", out)
	}
}

// restartDeletes 檢查 restart-apiserver.sh --delete KIND/NAME：停機期間刪掉任何有 namespace 的物件
// （這裡是一個 ConfigMap），說出刪了什麼；錯誤的 KIND 或沒有 namespace 的資源只印一行錯誤，不重新啟動。
// --help 是說明，不是錯誤。
//
// restartDeletes checks restart-apiserver.sh --delete KIND/NAME: any
// namespaced object (a ConfigMap here) is deleted during the outage, and the
// script says what it deleted; a wrong KIND or a resource without a namespace
// is one error line and no restart. --help is help, not an error.
func restartDeletes(t *testing.T, l *lab, cs kubernetes.Interface) {
	t.Helper()
	ctx := t.Context()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	code, out := l.runArgs("restart-apiserver.sh", []string{"--delete", "cm/doomed"})
	if code != 0 || !strings.Contains(out, "deleted configmaps default/doomed while kube-apiserver was down") {
		t.Errorf("restart-apiserver.sh --delete cm/doomed: exit %d:\n%s", code, out)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "doomed", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("configmap doomed still there after the restart (%v)", err)
	}
	for args, want := range map[string]string{
		"--delete nosuch/x":         `restart-apiserver: error: --delete "nosuch/x": the cluster serves no resource "nosuch"`,
		"--delete node/kwok-node-0": `restart-apiserver: error: --delete "node/kwok-node-0": nodes are not namespaced`,
	} {
		code, out := l.runArgs("restart-apiserver.sh", strings.Fields(args))
		if code != 1 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, want) {
			t.Errorf("restart-apiserver.sh %s: exit %d, %q; want exit 1 and one line starting %q", args, code, out, want)
		}
	}
	if code, out := l.runArgs("restart-apiserver.sh", []string{"--help"}); code != 0 || !strings.HasPrefix(out, "usage: ") {
		t.Errorf("restart-apiserver.sh --help: exit %d, %q; want the usage and exit 0", code, out)
	}
}

// behavesLikeACluster 檢查真實叢集做得到、單靠 API server 做不到的每一件事：Pod 變成 Running、
// 新 namespace 的 default ServiceAccount、Deployment 的三個 Pod 都 Running、namespace 刪得掉。
//
// behavesLikeACluster checks each thing a real cluster does that an API
// server alone does not: the pod goes Running, a new namespace gets its
// default ServiceAccount, a Deployment's three pods run, and the namespace
// can be deleted.
func behavesLikeACluster(t *testing.T, cs kubernetes.Interface, node string) {
	t.Helper()
	ctx := t.Context()
	poll := func(what string, timeout time.Duration, done func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
			return done(), nil
		}); err != nil {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		return time.Since(start)
	}
	running := func(ns, selector string, n int) func() bool {
		return func() bool {
			pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
			if err != nil || len(pods.Items) != n {
				return false
			}
			for _, p := range pods.Items {
				if p.Status.Phase != corev1.PodRunning {
					return false
				}
			}
			return true
		}
	}
	t.Logf("pod hello Running after %s", poll("pod hello Running", 60*time.Second, func() bool {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "hello", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning && p.Spec.NodeName == node
	}))

	ns := "t"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll("default ServiceAccount in a new namespace", 30*time.Second, func() bool {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	labels := map[string]string{"app": "web"}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(3)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       scene.Pod("", "", nil).Spec,
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, deploy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("Deployment's 3 pods Running after %s", poll("a Deployment's 3 pods Running", 30*time.Second, running(ns, "app=web", 3)))
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("namespace deleted after %s", poll("namespace t deleted", 60*time.Second, func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}))
}

// 情境：要求一個已被占用的埠，得到一行清楚的錯誤與非零結束碼，而且什麼都沒留下。
//
// The story: asking for a port already in use gives one clear error line and
// a non-zero exit, and leaves nothing behind.
func TestLocalPortInUse(t *testing.T) {
	t.Parallel()
	l := newLab(t, "lab-port")
	busy := newLab(t, "lab-port-owner")
	busy.mustRun("cluster-up.sh")
	port := strings.TrimPrefix(mustCurrentServer(t, busy.kubeconfig), "https://127.0.0.1:")
	port = strings.TrimSuffix(port, "/")

	code, out := l.run("cluster-up.sh", "CLUSTER=local", "LOCAL_PORT="+port)
	if code == 0 {
		t.Fatalf("cluster-up.sh on a busy port succeeded:\n%s", out)
	}
	if !strings.Contains(lastLine(out), "port "+port+" on 127.0.0.1 is already in use") {
		t.Errorf("last line = %q; want the port-in-use error", lastLine(out))
	}
	if ps := l.processes(); ps != "" {
		t.Errorf("processes left after the failed start:\n%s", ps)
	}
}

// 情境：要求 kind 但 Docker 沒有回應，得到一行錯誤，並建議改用 CLUSTER=local。
//
// The story: asking for kind while Docker does not answer gives one error
// line that suggests CLUSTER=local.
func TestKindWithoutDocker(t *testing.T) {
	l := newLab(t, "lab-kind")
	code, out := l.run("cluster-up.sh", "CLUSTER=kind")
	if code == 0 {
		t.Fatalf("CLUSTER=kind without Docker succeeded:\n%s", out)
	}
	if n := strings.Count(out, "error:"); n != 1 || !strings.Contains(lastLine(out), "CLUSTER=local scripts/cluster-up.sh") {
		t.Errorf("want exactly one error line naming CLUSTER=local scripts/cluster-up.sh; got:\n%s", out)
	}
}

// 情境：Docker 有回應，但 kind 的節點映像檔拿不到（沒有 registry 回應）：自動選擇退回本機叢集，用一行說出原因，
// 叢集照樣起來；明白要求 kind 時，最後一行說出可行的指令。
//
// The story: a Docker daemon answers, but kind's node image cannot be had
// (no registry answers): the automatic choice falls back to the local
// cluster, saying why in one line, and the cluster comes up; asking for kind
// outright ends with a last line that names the command that works.
func TestAutoFallsBackWithoutANodeImage(t *testing.T) {
	t.Parallel()
	noRegistry := t.TempDir()
	fake := "#!/bin/sh\ncase \"$1\" in\ninfo) exit 0 ;;\nimage) exit 1 ;;\npull) echo 'Error response from daemon: Get \"https://registry-1.docker.io/v2/\": dial tcp: lookup registry-1.docker.io: no such host' >&2; exit 1 ;;\nesac\nexit 1\n"
	if err := os.WriteFile(filepath.Join(noRegistry, "docker"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + noRegistry + string(os.PathListSeparator) + os.Getenv("PATH")
	l := newLabEnv(t, "lab-fallback", path)
	code, out := l.run("cluster-up.sh", "CLUSTER=kind")
	if code == 0 || !strings.HasSuffix(lastLine(out), "or use the local cluster, which needs no image: CLUSTER=local scripts/cluster-up.sh") {
		t.Errorf("CLUSTER=kind with no node image to be had: exit %d; want a last line naming CLUSTER=local:\n%s", code, out)
	}
	out = l.mustRun("cluster-up.sh")
	if !strings.Contains(out, "a Docker daemon answers, but kind's node image cannot be had here (") ||
		!strings.Contains(out, "no such host), so using the local cluster instead (CLUSTER=kind to insist)") || !strings.Contains(out, "local cluster ready at") {
		t.Errorf("with no node image to be had, cluster-up.sh did not fall back to the local cluster:\n%s", out)
	}
	l.mustRun("cluster-down.sh")
}

// 情境：導覽指令從零建立叢集、依序執行每個步驟並製造變化，最後告訴學習者下一步。
//
// The story: the walkthrough command brings a cluster up, runs every step in
// order while making changes, and ends by telling the learner what to try next.
func TestWalkthrough(t *testing.T) {
	t.Parallel()
	l := newLab(t, "lab-walkthrough")
	out := l.mustRun("walkthrough.sh", "SCENE_PAUSE=0s")
	for _, section := range stepSections(t, out) {
		// 在擬真的本機叢集上，每一步都看得到 demo 被排程、變成 Running；從步驟 06 起，Pod 的 informer 只看
		// metadata，看不到 phase：那些步驟要看到的是 informer 收到 demo、把 demo 交給 tally。tally 有沒有數到 demo 就看時機了：
		// SCENE_PAUSE=0s 時，demo 可能在一次 Reconcile 之內就建立又刪除，佇列把三個變化併成一個 key，
		// Reconcile 只看得到最後的樣子（level-based），這是對的。tally 的數字交給照著 README 執行的測試，以 README 的步調檢查。
		// On the realistic local cluster every step sees demo scheduled and Running; from step 06 on, the pod
		// informer sees metadata only, no phase: those steps must show it receiving demo and handing it to the tally.
		// Whether the tally counts demo is a matter of timing: with SCENE_PAUSE=0s demo can come and go within one
		// Reconcile, the queue folds the three changes into one key, and Reconcile sees only the end state
		// (level-based), which is right. The README walk checks the tally's counts, at the README's pace.
		seen := regexp.MustCompile(`default/demo .*(phase=Running node=kwok-node-0|phase Pending -> Running)`)
		if strings.Contains(section.text, "metadata-only") {
			seen = regexp.MustCompile(`pods +OnAdd +default/demo +labels=app=demo: (queued tally app-demo|map to tallies)`)
		}
		if !seen.MatchString(section.text) {
			t.Errorf("%s did not show pod demo going Running (or, metadata-only, handed to the tally):\n%s", section.step, section.text)
		}
	}
}

// section 是導覽輸出裡一個步驟的段落。 / section is one step's part of the walkthrough's output.
type section struct{ step, text string }

// stepSections 把導覽的輸出切成每一步一段，並確認每個步驟都跑了、每一步的 demo 都被刪除。
//
// stepSections cuts the walkthrough's output into one part per step, and
// checks that every step ran and every step's demo was deleted.
func stepSections(t *testing.T, out string) []section {
	t.Helper()
	steps, _ := filepath.Glob("../step[0-9][0-9]-*")
	if len(steps) == 0 {
		t.Fatal("no steps found")
	}
	var sections []section
	for _, dir := range steps {
		step := filepath.Base(dir)
		_, text, ok := strings.Cut(out, "==== "+step+": ")
		if !ok {
			t.Errorf("the walkthrough did not run %s:\n%s", step, out)
			continue
		}
		text, _, _ = strings.Cut(text, "\n==== ")
		sections = append(sections, section{step, text})
	}
	if !strings.Contains(out, "==== what next ====") || strings.Count(out, "scene: deleted pod default/demo") != len(steps) {
		t.Errorf("the walkthrough did not finish every step's scene:\n%s", out)
	}
	return sections
}

func mustCurrentServer(t *testing.T, kubeconfig string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster].Server
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// 情境：scene 的錯誤輸入（不認得的旗標、少了指令、不認得的指令）各只印一行並以 2 結束，
// 不連線；-h 印出完整的用法並以 0 結束。
//
// The story: each bad input to scene (an unknown flag, no command, an
// unknown command) prints one line and exits 2 without connecting; -h prints
// the whole usage and exits 0.
func TestSceneBadInput(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "scene")
	if out, err := exec.Command("go", "build", "-o", bin, "../internal/cmd/scene").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "scene: flag provided but not defined: -bogus (see -h)"},
		{nil, "scene: no command given (create, label, annotate, delete, demo, burst, failing, reset, delete-configmap, delete-tally, tally-count; see -h)"},
		{[]string{"frobnicate"}, `scene: unknown command "frobnicate"`},
		{[]string{"tally-count", "app-demo", "seven"}, `scene: tally-count: N must be a number from 0 to 1000000, not "seven"`},
	} {
		var stderr strings.Builder
		cmd := exec.Command(bin, c.args...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		exitErr, ok := err.(*exec.ExitError)
		if !ok || exitErr.ExitCode() != 2 {
			t.Errorf("scene %v: %v; want exit status 2", c.args, err)
		}
		if msg := stderr.String(); strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, c.want) {
			t.Errorf("scene %v: stderr %q; want one line starting %q", c.args, msg, c.want)
		}
	}
	out, err := exec.Command(bin, "-h").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "usage: scene [flags] COMMAND [ARGS]") {
		t.Errorf("scene -h: %v\n%s", err, out)
	}
}

// 情境：測試指令的設定錯了（不認得的 TIER、TEST_KIND、RACE 或 TEST_BUNDLE）：一行說明、結束碼 1，在檢查工具、
// 啟動 Docker 或建置任何東西之前。
//
// The story: a wrong setting for the test command (an unknown TIER,
// TEST_KIND, RACE or TEST_BUNDLE) gets one line and exit status 1, before
// the tools are checked, Docker is started or anything is built.
func TestTestScriptBadSettings(t *testing.T) {
	l := newLab(t, "lab-test-settings")
	for _, c := range []struct{ setting, want string }{
		{"TIER=everything", "test: error: TIER must be quick or full, not 'everything'"},
		{"TEST_KIND=maybe", "test: error: TEST_KIND must be yes or no, not 'maybe'"},
		{"RACE=1", "test: error: RACE must be yes or no, not '1'"},
		{"TEST_BUNDLE=please", "test: error: TEST_BUNDLE must be yes or no, not 'please'"},
	} {
		code, out := l.run("test.sh", c.setting)
		if code != 1 || out != c.want+"\n" {
			t.Errorf("%s scripts/test.sh: exit %d, %q; want exit 1 and the one line %q", c.setting, code, out, c.want)
		}
	}
}

// 情境：節點映像檔、CI daemon 與冷編譯量測的腳本遇到錯誤的輸入時，各自只印出一行說明並以非零結束碼結束，
// 而且什麼都沒做；--print-name 印出的名稱帶著 Kubernetes 的版本與輸入的雜湊，兩次一樣。
//
// The story: the node image script, the CI daemon script and the cold
// compile benchmark each answer bad input with one line and a non-zero exit,
// having done nothing; --print-name
// prints a name carrying the Kubernetes version and a hash of the inputs, the
// same twice.
func TestKindScriptsBadInput(t *testing.T) {
	l := newLab(t, "lab-bad-input")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ci/build-kind-node-image.sh", "--bogus"}, "build-kind-node-image: error: unknown argument '--bogus' (usage: "},
		{[]string{"ci/docker.sh"}, "docker: error: usage: "},
		{[]string{"ci/docker.sh", "restart"}, "docker: error: usage: "},
		{[]string{"ci/bench-cold-compile.sh", "bogus"}, "bench-cold-compile: error: unknown item 'bogus' (items: "},
	} {
		cmd := exec.Command("bash", c.args...)
		cmd.Env = l.env
		out, err := cmd.CombinedOutput()
		if exitErr, ok := err.(*exec.ExitError); !ok || exitErr.ExitCode() != 1 {
			t.Errorf("%v: %v; want exit status 1", c.args, err)
		}
		if strings.Count(string(out), "\n") != 1 || !strings.HasPrefix(string(out), c.want) {
			t.Errorf("%v: output %q; want one line starting %q", c.args, out, c.want)
		}
	}
	printName := func() string {
		cmd := exec.Command("bash", "ci/build-kind-node-image.sh", "--print-name")
		cmd.Env = l.env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("build-kind-node-image.sh --print-name: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	name := regexp.MustCompile(`^localhost/informer-walkthrough/kind-node:v1\.37\.\d+-[0-9a-f]{12}$`)
	first := printName()
	if !name.MatchString(first) {
		t.Errorf("--print-name = %q; want a match for %s", first, name)
	}
	if again := printName(); again != first {
		t.Errorf("--print-name gave %q, then %q", first, again)
	}
}

// 情境：liveview.sh 不需要叢集。-h 印出用法、以 0 結束；用錯了指令是一行用法、結束碼 2；讀不了的檔案是一行、
// 結束碼 1；最後一行被截斷的錄製檔（步驟被 kill）說一行之後照樣匯出；export 寫出一個完整的 HTML 檔；
// replay 印出網址、提供頁面與事件，Ctrl-C 之後以 0 結束，埠也關了。
//
// The story: liveview.sh needs no cluster. -h prints the usage and exits 0;
// a command used wrongly is one usage line and exit status 2; a file it
// cannot use is one line and exit status 1; a recording whose last line was
// cut off (the step was killed) exports after one line saying so; export
// writes one whole HTML file; replay prints its URL, serves the page and the
// events, and after Ctrl-C exits 0 with its port closed.
func TestLiveviewScript(t *testing.T) {
	t.Parallel()
	l := newLab(t, "lab-liveview")
	recording := filepath.Join("..", "step04-controller", "testdata", "demo.recording.jsonl")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// 第一次執行先建好小程式（會說它在建），之後每次只有一行。 / The first run builds the helper (and says so); after that, one line each.
	if code, out := l.runArgs("liveview.sh", nil); code != 2 || !strings.HasPrefix(lastLine(out), "liveview: usage: ") {
		t.Fatalf("liveview.sh with no arguments: exit %d, %q", code, out)
	}
	if code, out := l.runArgs("liveview.sh", []string{"-h"}); code != 0 || !strings.HasPrefix(out, "usage: scripts/liveview.sh replay") {
		t.Errorf("liveview.sh -h: exit %d, %q; want the usage and exit 0", code, out)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "liveview: usage: scripts/liveview.sh replay"},
		{[]string{"replay"}, 2, "liveview: usage: scripts/liveview.sh replay"},
		{[]string{"export", recording}, 2, "liveview: usage: scripts/liveview.sh replay"},
		{[]string{"replay", "--bogus", recording}, 2, "liveview: flag provided but not defined: -bogus (usage: "},
		{[]string{"replay", "no-such.jsonl"}, 1, "liveview: open no-such.jsonl: no such file or directory"},
		{[]string{"replay", "../go.mod"}, 1, "liveview: ../go.mod: line 1: "},
		{[]string{"replay", "--ui=" + busy.Addr().String(), recording}, 1, "liveview: the live view cannot listen on " + busy.Addr().String()},
		{[]string{"replay", "--ui=nonsense", recording}, 2, `liveview: --ui "nonsense": want HOST:PORT`},
	} {
		code, out := l.runArgs("liveview.sh", c.args)
		if code != c.code || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, c.want) {
			t.Errorf("liveview.sh %v: exit %d, %q; want exit %d and one line starting %q", c.args, code, out, c.code, c.want)
		}
	}

	// 被 kill 的步驟留下的錄製檔：最後一行只寫了一半。 / What a killed step leaves: a last line half written.
	whole, err := os.ReadFile(recording)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(cut, whole[:len(whole)-20], 0o644); err != nil {
		t.Fatal(err)
	}
	cutHTML := filepath.Join(t.TempDir(), "cut.html")
	code, out := l.runArgs("liveview.sh", []string{"export", cut, cutHTML})
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "liveview: "+cut+": line ") || !strings.Contains(lines[0], " is cut off (the step did not exit cleanly); using the ") ||
		!strings.HasPrefix(lines[1], "liveview: wrote "+cutHTML) {
		t.Errorf("export of a cut-off recording: exit %d, %q; want one line about the cut, then the export", code, out)
	}
	if page, err := os.ReadFile(cutHTML); err != nil || bytes.Contains(page, whole[len(whole)-60:len(whole)-20]) {
		t.Errorf("the export of a cut-off recording (%v) still holds the half line", err)
	}

	html := filepath.Join(t.TempDir(), "demo.html")
	code, out = l.runArgs("liveview.sh", []string{"export", recording, html})
	if code != 0 || !strings.HasPrefix(out, "liveview: wrote "+html+" (") {
		t.Fatalf("export: exit %d, %s", code, out)
	}
	if page, err := os.ReadFile(html); err != nil || !strings.HasPrefix(string(page), "<!doctype html>") || !strings.Contains(string(page), `"informer-walkthrough-recording"`) {
		t.Errorf("export wrote %d bytes (%v); want an HTML page with the recording in it", len(page), err)
	}

	cmd := exec.Command("bash", "liveview.sh", "replay", recording)
	cmd.Env = l.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	m := regexp.MustCompile(`^live view: (http://127\.0\.0\.1:\d+/) \(replaying \d+ events of step04-controller; Ctrl-C to stop\)\n$`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("replay said %q (%v); want its URL", line, err)
	}
	for _, path := range []string{"", "events"} {
		resp, err := http.Get(m[1] + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) == 0 {
			t.Errorf("GET /%s: %s, %d bytes", path, resp.Status, len(body))
		}
	}
	// Ctrl-C 送給整個前景行程群組，跟終端機一樣。 / Ctrl-C goes to the whole foreground process group, as a terminal sends it.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("replay after Ctrl-C: %v; want exit status 0", err)
	}
	if resp, err := http.Get(m[1]); err == nil {
		resp.Body.Close()
		t.Errorf("%s still answers after replay exited", m[1])
	}
}

// 情境：小程式的執行檔快取不會一直長大。建置時，同一個小程式兩週沒用的執行檔與中斷的建置留下的半成品會被刪掉；
// 最近用過的、別的小程式的都留著；用一次就算用過，即使它是很久以前建的。
//
// The story: the helper binary cache does not grow for ever. A build removes
// the same helper's binaries unused for two weeks and the half-written ones
// an interrupted build left; recently used ones and other helpers' stay; a
// binary built long ago counts as used once it runs.
func TestHelperCacheIsPruned(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, "informer-walkthrough", "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ages := map[string]time.Duration{
		"liveview-0000000000000000":       30 * 24 * time.Hour,
		"liveview-1111111111111111":       24 * time.Hour,
		"liveview-2222222222222222.tmp.1": 2 * time.Hour,
		"scene-3333333333333333":          30 * 24 * time.Hour,
	}
	for name, age := range ages {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	l := newLab(t, "lab-helpercache")
	// 沒有設定 GOCACHE 時，Go 把建置快取放在 $XDG_CACHE_HOME/go-build：不指定 GOCACHE 的話，這個測試每次都從零建置整個 liveview（約一分鐘）。
	// Without GOCACHE, Go keeps its build cache in $XDG_CACHE_HOME/go-build: left unset, this test would build all of liveview from nothing each time (about a minute).
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	help := func() {
		t.Helper()
		if code, out := l.runArgs("liveview.sh", []string{"-h"}, "XDG_CACHE_HOME="+cache, "GOCACHE="+strings.TrimSpace(string(gocache))); code != 0 {
			t.Fatalf("liveview.sh -h: exit %d\n%s", code, out)
		}
	}
	help()
	left := func() []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	var built string
	for _, name := range left() {
		if _, old := ages[name]; !old {
			built = name
		}
	}
	want := []string{"liveview-1111111111111111", built, "scene-3333333333333333"}
	slices.Sort(want)
	if got := left(); built == "" || !slices.Equal(got, want) {
		t.Fatalf("the cache after a build holds %v; want the one built, the recently used one and the other helper's: %v", got, want)
	}

	path := filepath.Join(dir, built)
	if err := os.Chtimes(path, now.Add(-30*24*time.Hour), now.Add(-30*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	help()
	if fi, err := os.Stat(path); err != nil || time.Since(fi.ModTime()) > time.Hour {
		t.Errorf("%s was used but not marked as used: %v, %v", built, fi.ModTime(), err)
	}
}

// 情境：小程式的快取鍵涵蓋內嵌進執行檔的檔案。改了即時頁面的 style.css，鍵就變了（下一次會重新建置）；
// 改了測試檔或 testdata，鍵不變。
//
// The story: the helper cache key covers the files embedded in the binary.
// Changing the live page's style.css changes the key (the next run builds
// again); changing a test file or testdata does not.
func TestHelperKeyCoversEmbeddedFiles(t *testing.T) {
	root := t.TempDir()
	lib, err := os.ReadFile("lib.sh")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"scripts/lib.sh":                         string(lib),
		"go.mod":                                 "module example\n",
		"go.sum":                                 "",
		"internal/liveview/page/style.css":       "body { margin: 0; }\n",
		"internal/liveview/serve.go":             "package liveview\n",
		"internal/liveview/serve_test.go":        "package liveview\n",
		"internal/liveview/testdata/x.recording": "{}\n",
	}
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range files {
		write(name, text)
	}
	key := func() string {
		t.Helper()
		out, err := exec.Command("bash", "-c", `source "$1" && helper_key`, "bash", filepath.Join(root, "scripts", "lib.sh")).CombinedOutput()
		if err != nil {
			t.Fatalf("helper_key: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	before := key()
	write("internal/liveview/serve_test.go", "package liveview // changed\n")
	write("internal/liveview/testdata/x.recording", "{\"changed\":true}\n")
	if got := key(); got != before {
		t.Errorf("changing a test file and testdata changed the key (%s -> %s): every test edit would rebuild the helpers", before, got)
	}
	write("internal/liveview/page/style.css", "body { margin: 1px; }\n")
	if got := key(); got == before {
		t.Errorf("changing the embedded style.css left the key %s: the helper would serve the old page", got)
	}
}
