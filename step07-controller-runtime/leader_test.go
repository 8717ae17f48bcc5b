package main

import (
	"os"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// replica 是一個以執行檔啟動的副本。 / replica is one replica started from the binary.
type replica struct {
	cmd  *exec.Cmd
	out  *testenv.Output
	done chan struct{}
}

func startReplica(t *testing.T, bin string, args ...string) *replica {
	t.Helper()
	r := &replica{out: &testenv.Output{}, done: make(chan struct{})}
	r.cmd = testenv.Command(bin, args...)
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

// 情境：兩個副本、--leader-elect、租約期限 4 秒。兩個副本的快取都同步了（待命副本的 --trace 看得到它的三條 watch），
// 只有 leader reconcile；
// leader 被 SIGKILL 殺掉（來不及交出 Lease），另一個在 Lease 到期之後接手，接著的變化由它 reconcile。
// 然後：兩個副本都沒有 --leader-elect，兩個都 reconcile 同一個變化。
//
// The story: two replicas, --leader-elect, a 4-second lease. Both replicas'
// caches sync (the standby's --trace shows its three watches), only the leader
// reconciles; the leader is killed with SIGKILL
// (no time to give the lease up), the other takes over once the lease
// expires, and reconciles the next change. Then: two replicas without
// --leader-elect both reconcile the same change.
func TestLeaderElection(t *testing.T) {
	testenv.FullTier(t, "waits out a real 4-second lease twice over, about 13 s")
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	bin := testenv.Build(t)
	kc := c.Kubeconfig(t)
	const lease = 4 * time.Second
	args := []string{"--kubeconfig", kc, "-n", ns, "--leader-elect", "--lease-duration", lease.String()}

	a := startReplica(t, bin, args...)
	a.out.Wait(t, 1, "elected leader")
	// b 帶著 --trace：它的 informer 在跑，看得到它的三條 watch。 / b runs with --trace: its informers run, and its three watches show.
	b := startReplica(t, bin, append(args, "--trace")...)
	b.out.Wait(t, 1, "caches synced in this replica; watching from there")
	b.out.Wait(t, 1, "trace: GET /apis/lab.informer-walkthrough.github.io/v1alpha1/namespaces/"+ns+"/podtallies?", "watch=true -> 200")
	b.out.Wait(t, 1, "trace: GET /api/v1/namespaces/"+ns+"/pods?", "watch=true -> 200")
	b.out.Wait(t, 1, "trace: GET /api/v1/namespaces/"+ns+"/configmaps?", "watch=true -> 200")
	testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
	a.out.Wait(t, 1, show.Prefix("podtally", "Reconcile", ns+"/app-demo"), "UpdateStatus: count 0 -> 1")
	// Reconcile 先印出要寫什麼，才寫；殺掉 a 之前要等那次寫入真的到了 API server，否則 b 會從 0 開始數。
	// Reconcile prints what it will write before it writes; before a is killed, the write must have reached the API
	// server, or b would count from 0.
	waitTally(t, c, ns, "app-demo", "count 1", func(p *labv1alpha1.PodTally) bool { return p.Status.Count == 1 })
	// b 的處理函式與 predicate 屬於控制器，控制器只在 leader 裡啟動：b 什麼都不印，也不 reconcile。
	// b's handlers and predicates belong to the controller, which starts only in the leader: b prints nothing and
	// does not reconcile.
	if n := b.out.Count("podtally Reconcile"); n != 0 || b.out.Count("elected leader") != 0 {
		t.Fatalf("the standby reconciled or was elected while the leader ran:\n%s", b.out.String())
	}

	killed := time.Now()
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-a.done
	b.out.Wait(t, 1, "elected leader")
	// 最壞的情況：leader 剛續約就被殺；b 最晚在下一次嘗試時才看到那次續約，從看到的那一刻起再等整整
	// 一個租約期限，然後最晚在再下一次嘗試時取得 Lease。嘗試的間隔是 retry 加上最多 120 % 的隨機抖動
	// （client-go leaderelection 的 JitterFactor 1.2），retry 是 lease/5。
	// At worst the leader renewed just before it died; b sees that renewal at its next try at the latest, waits a
	// full lease duration from when it saw it, and takes the Lease at the try after that at the latest. Tries are a
	// retry period apart plus up to 120 % jitter (client-go leaderelection's JitterFactor 1.2); retry is lease/5.
	// 最好的情況也有下限：leader 最後一次續約最早在被殺之前一個 retry（它每個 retry 續約一次，不加抖動），
	// b 從它看到那次續約起要等滿一個租約期限，所以接手不會早於 lease - retry（再留一個 retry 的餘裕）。
	// There is a lower bound too: the leader's last renewal came at most one retry before the kill (it renews every
	// retry period, without jitter), and b waits a full lease duration from when it saw that renewal, so it cannot
	// take over before lease - retry (one more retry is left as slack).
	retry := lease / 5
	took := time.Since(killed)
	if took > lease+2*(retry+retry*12/10)+time.Second {
		t.Errorf("b took over %s after the leader died; want within the lease duration (%s) and two jittered retries", took.Round(100*time.Millisecond), lease)
	}
	if took < lease-2*retry {
		t.Errorf("b took over %s after the leader died; a leader that cannot give the Lease up holds it for most of the lease duration (%s)", took.Round(100*time.Millisecond), lease)
	}
	t.Logf("killed leader: b took over after %s (lease %s)", took.Round(100*time.Millisecond), lease)
	testenv.CreatePod(t, c.Client(), ns, "two", map[string]string{"app": "demo"})
	b.out.Wait(t, 1, show.Prefix("podtally", "Reconcile", ns+"/app-demo"), "count 1 -> 2")
	waitTally(t, c, ns, "app-demo", "count 2", func(p *labv1alpha1.PodTally) bool { return p.Status.Count == 2 })

	// 情境：租約期限 20 秒。leader 收到 Ctrl-C 時交出 Lease（LeaderElectionReleaseOnCancel）、以 0 結束，
	// 另一個副本在下一次嘗試時就接手：最多一個加上抖動的 retry（4 s 加最多 120 %）再加一秒，遠早於被殺時的
	// 下限（lease - 2 retry = 12 s）。
	// The story: a 20-second lease. On Ctrl-C the leader gives the Lease up (LeaderElectionReleaseOnCancel) and
	// exits 0, and the other replica takes over at its next try: within one jittered retry (4 s plus up to 120 %)
	// and a second, well before the lower bound of a killed leader (lease - 2 retries = 12 s).
	t.Run("release-on-ctrl-c", func(t *testing.T) {
		ns := c.Namespace(t)
		freshTally(t, c, ns, "app-demo", "app=demo")
		const lease = 20 * time.Second
		retry := lease / 5
		args := []string{"--kubeconfig", kc, "-n", ns, "--leader-elect", "--lease-duration", lease.String()}
		x := startReplica(t, bin, args...)
		x.out.Wait(t, 1, "elected leader")
		y := startReplica(t, bin, args...)
		y.out.Wait(t, 1, "caches synced in this replica; watching from there")
		stopped := time.Now()
		if err := x.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		<-x.done
		if code := x.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("Ctrl-C: exit %d; want 0\n%s", code, x.out.String())
		}
		y.out.Wait(t, 1, "elected leader")
		took := time.Since(stopped)
		if took > retry+retry*12/10+time.Second {
			t.Errorf("y took over %s after the leader's Ctrl-C; a released Lease is taken at the next try (within %s)", took.Round(100*time.Millisecond), retry+retry*12/10+time.Second)
		}
		t.Logf("released lease: y took over after %s (lease %s)", took.Round(100*time.Millisecond), lease)
	})

	t.Run("without-leader-election", func(t *testing.T) {
		ns := c.Namespace(t)
		freshTally(t, c, ns, "app-demo", "app=demo")
		plain := []string{"--kubeconfig", kc, "-n", ns}
		x, y := startReplica(t, bin, plain...), startReplica(t, bin, plain...)
		x.out.Wait(t, 1, "watching from there")
		y.out.Wait(t, 1, "watching from there")
		testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
		for _, r := range []*replica{x, y} {
			r.out.Wait(t, 1, show.Prefix("podtally", "Reconcile", ns+"/app-demo"), `1 pod matches "app=demo": one`)
		}
		if err := x.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		<-x.done
		if code := x.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("Ctrl-C: exit %d; want 0\n%s", code, x.out.String())
		}
	})
}

// 情境：演練「被凍住的 leader，計時」。租約期限 4 秒；a 是 leader，b 帶著 --show-lease，每秒印出 Lease 上次續約距今多久。
// a 被凍住（SIGSTOP，跟 controlplane.Pause 一樣），不再續約：b 印出的這段時間一路增加，超過續約期限、再超過租約期限，
// 然後 b 接手（時間界限跟 TestLeaderElection 的一樣）。a 解凍（SIGCONT）之後繼續續約，發現 Lease 已經換人，
// 在一個續約期限之內放棄：controller-runtime 說 leader election lost，不再等 runnable 慢慢結束，以 1 結束。
//
// The story: the drill "a frozen leader, timed". A 4-second lease; a leads,
// and b, with --show-lease, prints the Lease's age every second. a is
// frozen (SIGSTOP, as controlplane.Pause does) and renews no more: the age b
// prints keeps growing, past the renew deadline and past the lease duration,
// and then b takes over (within TestLeaderElection's bounds). a, thawed
// (SIGCONT), goes on renewing, finds the Lease held by another and gives up
// within one renew deadline: controller-runtime says leader election lost,
// skips the graceful shutdown, and exits 1.
func TestFrozenLeader(t *testing.T) {
	testenv.FullTier(t, "a drill that waits out a real 4-second lease, about 11 s")
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	bin := testenv.Build(t)
	const lease = 4 * time.Second
	retry := lease / 5
	args := []string{"--kubeconfig", c.Kubeconfig(t), "-n", ns, "--leader-elect", "--lease-duration", lease.String()}
	a := startReplica(t, bin, args...)
	a.out.Wait(t, 1, "elected leader")
	b := startReplica(t, bin, append(args, "--show-lease")...)
	b.out.Wait(t, 2, "-- lease "+leaseName+": held by ", "(renew deadline 2.7s, lease duration 4s)")

	frozen := time.Now()
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	b.out.Wait(t, 1, "elected leader")
	took := time.Since(frozen)
	if took < lease-2*retry || took > lease+2*(retry+retry*12/10)+time.Second {
		t.Errorf("b took over %s after the leader froze; want between %s and %s", took.Round(100*time.Millisecond), lease-2*retry, lease+2*(retry+retry*12/10)+time.Second)
	}
	// b 接手之前印出的時間裡，至少有一個超過續約期限：凍住的 leader 再也沒有續約。
	// Among the ages b printed before taking over, at least one is past the renew deadline: the frozen leader never renewed again.
	if !regexpMatch(`renewed ([3-9]|\d\d)(\.\d)?s ago`, b.out.String()) {
		t.Errorf("b never printed an age past the renew deadline (2.7s):\n%s", b.out.String())
	}

	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.done:
	case <-time.After(testenv.WaitTimeout):
		t.Fatalf("the thawed leader still runs %s after SIGCONT\n%s", testenv.WaitTimeout, a.out.String())
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("the thawed leader exited %d; want 1, an error at run time, after losing the Lease\n%s", code, a.out.String())
	}
	a.out.Wait(t, 1, "leader election lost")
	t.Logf("frozen leader: b took over after %s; a, thawed, said:\n%s", took.Round(100*time.Millisecond), a.out.String())
}

// regexpMatch 說 text 裡有沒有符合 pattern 的地方。 / regexpMatch says whether text has a match of pattern.
func regexpMatch(pattern, text string) bool {
	return regexp.MustCompile(pattern).MatchString(text)
}
