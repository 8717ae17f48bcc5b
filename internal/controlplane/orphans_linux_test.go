package controlplane_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/controlplane"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：一個測試的行程（這裡是這個測試執行檔自己，以子行程的身分重新執行）啟動了它的叢集（etcd 與
// kube-apiserver），然後被 SIGKILL：沒有任何清理的機會，就像 go test 逾時 panic 或 CI 的時限到了。
// 它啟動的每一個行程都要跟著結束，不能留下孤兒。
//
// The story: a test process (this very test binary, run again as a child)
// starts its cluster (etcd and kube-apiserver), then gets SIGKILL: no chance
// to clean up, as with a go test timeout panic or CI's time limit. Every
// process it started must end with it, none left orphaned.
func TestKilledTestBinaryLeavesNothing(t *testing.T) {
	child := exec.Command(os.Args[0], "-test.run=^TestOrphanChild$", "-test.v")
	// 被 SIGKILL 的子行程沒辦法刪掉它的叢集目錄（etcd 的資料約 120 MB）：所以把目錄放在這個測試的暫存目錄裡，測試結束時一起刪掉。
	// A child killed by SIGKILL cannot remove its cluster's directory (about 120 MB of etcd data): it goes under this
	// test's temporary directory, removed when the test ends.
	child.Env = append(os.Environ(), "INFORMER_LAB_ORPHAN_CHILD=1", "TMPDIR="+t.TempDir())
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && !strings.Contains(lines.Text(), "orphan child ready") {
	}
	started := descendants(t, child.Process.Pid)
	var names []string
	for _, pid := range started {
		names = append(names, comm(pid))
	}
	if !strings.Contains(strings.Join(names, " "), "etcd") || !strings.Contains(strings.Join(names, " "), "kube-apiserver") {
		t.Fatalf("the child started %v; want etcd and kube-apiserver among them", names)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	testenv.Poll(t, fmt.Sprintf("every process the killed test binary started (%v) to end", names), func() bool {
		for _, pid := range started {
			if alive(pid) {
				return false
			}
		}
		return true
	})
}

// TestOrphanChild 只在 TestKilledTestBinaryLeavesNothing 把這個執行檔當成子行程執行時做事：testenv.Main 已經
// 啟動了叢集，它說一聲，然後等著被殺。
//
// TestOrphanChild does something only when TestKilledTestBinaryLeavesNothing
// runs this binary as its child: testenv.Main has started the cluster; it
// says so, then waits to be killed.
func TestOrphanChild(t *testing.T) {
	if os.Getenv("INFORMER_LAB_ORPHAN_CHILD") != "1" {
		return
	}
	testenv.Plain(t)
	fmt.Println("orphan child ready")
	time.Sleep(time.Minute)
}

// 情境：macOS 的看守者（watchedGuard）在 Linux 上執行：啟動它的行程被 SIGKILL 之後，執行檔在幾秒內結束；
// 執行檔自己先結束時，看守者也不會留下來。
// The story: macOS's watcher (watchedGuard), run on Linux: once the process that
// started it gets SIGKILL, the binary ends within seconds; when the binary
// ends first, the watcher does not stay behind either.
func TestWatchedGuard(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	guard, err := controlplane.WatchedGuard(filepath.Dir(sleep), filepath.Base(sleep), dir)
	if err != nil {
		t.Fatal(err)
	}
	// parent 是一個 sh：在背景啟動被看守的 sleep，印出它的 pid，然後一直等。
	// parent is an sh that starts the guarded sleep in the background, prints its pid, and waits.
	parent := exec.Command("sh", "-c", `"$0" 120 & echo $!; wait`, guard)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = parent.Process.Kill(); _ = parent.Wait() })
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	// $! 在腳本開始執行之前就印出來了。等到它 exec 了 sleep（那時看守者已經記下父行程），才殺掉父行程。
	// $! is printed before the script has run. Kill the parent only once it has exec'd sleep (by then the watcher
	// has noted its parent).
	// （comm 不能用：腳本的名字也叫 sleep。 / Not comm: the script is called sleep too.）
	testenv.Poll(t, fmt.Sprintf("the guarded script (pid %d) to exec sleep", pid), func() bool {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		return strings.HasPrefix(string(cmdline), sleep+"\x00")
	})
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the guarded sleep (pid %d) still runs 10 s after its parent was killed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// 執行檔自己結束：看守者（同一個行程群組裡的 sh）不久也結束。
	// The binary ends by itself: the watcher (an sh in the same process group) ends soon after.
	short := exec.Command(guard, "0.1")
	short.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := short.Run(); err != nil {
		t.Fatal(err)
	}
	pgid := short.Process.Pid
	deadline = time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("ps", "-o", "pid=", "-g", strconv.Itoa(pgid)).Output()
		if strings.TrimSpace(string(out)) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the guarded binary ended, its process group still has %s", strings.Fields(string(out)))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// descendants 列出 pid 的子孫行程（從 /proc 讀每個行程的父行程）。 / descendants lists pid's descendants (reading each process's parent from /proc).
func descendants(t *testing.T, pid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// /proc/PID/stat：pid (comm) state ppid …；comm 可能有空白，所以從最後一個 ')' 之後讀。
		// /proc/PID/stat: pid (comm) state ppid …; comm may hold spaces, so read after the last ')'.
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		p, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		pp, _ := strconv.Atoi(fields[1])
		parent[p] = pp
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for c, pp := range parent {
			if pp == p {
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(pid)
	return out
}

func comm(pid int) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(data))
}

// alive 說行程還在跑（不存在或只剩殭屍都不算）。 / alive says the process still runs (gone or a zombie does not count).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	return !strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z")
}
