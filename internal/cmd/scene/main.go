// scene 在另一個終端機裡製造 Pod 的變化，讓步驟有東西可以觀察。只需要 Go。
//
// scene makes pod changes from a second terminal, so the steps have something
// to observe. It needs only Go.
//
//	scripts/scene.sh create web-1 app=web
//	scripts/scene.sh label web-1 tier=front
//	scripts/scene.sh label web-1 tier-
//	scripts/scene.sh annotate web-1 informer-lab/fail=true
//	scripts/scene.sh delete web-1
//	scripts/scene.sh demo
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

const usage = `usage: scene [flags] COMMAND [ARGS]

scene makes pod changes for the steps to observe, in the namespace of your
kubeconfig's context (or -n). It needs only Go.

commands:
  create NAME [KEY=VALUE ...]   create a pod with these labels and wait until it runs (if the cluster has
                                a node); a pod of that name already there is left as it is
  label NAME KEY=VALUE|KEY-     set or remove a label
  annotate NAME KEY=VALUE|KEY-  set or remove an annotation
  delete NAME                   delete a pod as kubectl delete does, and wait until it is gone
  demo                          create, relabel and delete the pod "demo"
  burst N                       make N label changes (burst=1..N) as fast as the API server takes them,
                                spread over the namespace's pods, then remove the label again
                                (to see workers in parallel and keys merged)
  reset                         delete every pod scene created in the namespace, except "before"

flags:
`

func main() {
	var f cli.Flags
	fs := flag.NewFlagSet("scene", flag.ContinueOnError)
	f.Register(fs)
	pause := fs.Duration("pause", time.Second, "demo: time between changes, so a human can follow")
	node := fs.String("node", "", "create: bind the pod to this node yourself (spec.nodeName), as if scheduled; a node that does not exist leaves it Pending")
	// 共用旗標的說明是寫給步驟的（「要看的 namespace」）；scene 是用來製造變化，不是用來觀察。
	// The shared flag's help is written for the steps ("namespace to watch"); scene changes, it does not watch.
	for _, name := range []string{"namespace", "n"} {
		fs.Lookup(name).Usage = "namespace to change (default: the context's namespace, else \"default\")"
	}
	fs.Lookup("n").Usage = "shorthand for --namespace"
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}

	// 旗標可以放在指令前後：反覆解析，把非旗標的參數收集起來。-h 印出完整的用法；
	// 錯誤的旗標或少了指令只印一行（見 cli.ParseFlags）。
	// Flags may come before or after the command: parse repeatedly and
	// collect the arguments that are not flags. -h prints the whole usage; a
	// bad flag or a missing command prints one line (see cli.ParseFlags).
	var args []string
	rest := os.Args[1:]
	for {
		cli.ParseFlags("scene", fs, rest)
		if fs.NArg() == 0 {
			break
		}
		args = append(args, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "scene: no command given (create, label, annotate, delete, demo, burst, reset; see -h)")
		os.Exit(2)
	}

	if err := checkArgs(args); err != nil {
		fmt.Fprintf(os.Stderr, "scene: %v\n", err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, err := cli.Connect(ctx, &f, false, os.Stdout, os.Stderr)
	if err == nil && args[0] == "burst" {
		// client-go 預設每秒 5 個請求，burst 就快不起來；這裡放寬，變化才會比同步快。
		// client-go's default of 5 requests a second would slow the burst down; lift it, so changes outpace syncs.
		fast := restclient.CopyConfig(env.Config)
		fast.QPS, fast.Burst = 100, 200
		env.Client, err = kubernetes.NewForConfig(fast)
	}
	if err == nil {
		err = run(ctx, env.Client, env.Namespace, args, settings{pause: *pause, node: *node})
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "scene: %v\n", err)
		os.Exit(1)
	}
}

// settleTimeout 是等 Pod 跑起來或消失的上限。 / settleTimeout bounds the wait for a pod to run or to be gone.
const settleTimeout = 30 * time.Second

// commands 是每個指令接受的參數個數（max < 0 表示沒有上限）與用法。
//
// commands lists each command's argument count (max < 0: no limit) and usage.
var commands = map[string]struct {
	min, max int
	form     string
}{
	"create":   {1, -1, "NAME [KEY=VALUE ...]"},
	"label":    {2, 2, "NAME KEY=VALUE|KEY-"},
	"annotate": {2, 2, "NAME KEY=VALUE|KEY-"},
	"delete":   {1, 1, "NAME"},
	"demo":     {0, 0, ""},
	"burst":    {1, 1, "N"},
	"reset":    {0, 0, ""},
}

// checkArgs 在連線之前檢查指令與參數個數，錯誤的用法不會送出任何請求。
//
// checkArgs checks the command and its argument count before connecting, so
// a wrong usage makes no request.
func checkArgs(args []string) error {
	c, ok := commands[args[0]]
	if !ok {
		return fmt.Errorf("unknown command %q (create, label, annotate, delete, demo, burst, reset)", args[0])
	}
	if n := len(args) - 1; n < c.min || (c.max >= 0 && n > c.max) {
		return fmt.Errorf("usage: scene %s %s", args[0], c.form)
	}
	if args[0] == "burst" {
		if n, err := strconv.Atoi(args[1]); err != nil || n < 1 || n > 1000 {
			return fmt.Errorf("burst: N must be a number from 1 to 1000, not %q", args[1])
		}
	}
	return nil
}

// settings 是 run 需要的旗標值。 / settings are the flag values run needs.
type settings struct {
	pause time.Duration
	node  string
}

func run(ctx context.Context, cs kubernetes.Interface, ns string, args []string, set settings) error {
	cmd, args := args[0], args[1:]
	switch cmd {
	case "create":
		labels := map[string]string{}
		for _, kv := range args[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("label %q is not KEY=VALUE", kv)
			}
			labels[k] = v
		}
		pod := scene.Pod(ns, args[0], labels)
		pod.Spec.NodeName = set.node
		// 等 Pod 跑起來（或沒有節點時不等），下一個變化才不會跟排程、kwok 的狀態更新交錯。
		// Wait until the pod runs (or not at all without nodes), so the next change does not interleave with scheduling and kwok's status updates.
		_, err := scene.CreateRunning(ctx, cs, pod, settleTimeout, func(s string) { fmt.Println("scene: " + s) })
		if apierrors.IsAlreadyExists(err) {
			// 照著 README 一步一步做時，before 早就在了：這不是錯誤。
			// Following the READMEs in order, before is already there: not an error.
			fmt.Printf("scene: pod %s/%s already exists; leaving it as it is\n", ns, args[0])
			return nil
		}
		if err != nil {
			return err
		}
		fmt.Printf("scene: created pod %s/%s (%s)\n", ns, args[0], show.Labels(labels))
	case "label", "annotate":
		key, value, err := parseChange(args[1])
		if err != nil {
			return err
		}
		change := scene.Label
		if cmd == "annotate" {
			change = scene.Annotate
		}
		if _, err := change(ctx, cs, ns, args[0], key, value); err != nil {
			return err
		}
		fmt.Printf("scene: %s pod %s/%s %s\n", cmd, ns, args[0], args[1])
	case "delete":
		if err := scene.Delete(ctx, cs, ns, args[0]); err != nil {
			return err
		}
		if err := scene.Settle(ctx, cs, ns, args[0], settleTimeout); err != nil {
			return err
		}
		fmt.Printf("scene: deleted pod %s/%s\n", ns, args[0])
	case "demo":
		steps := [][]string{
			{"create", "demo", "app=demo"},
			{"label", "demo", "tier=web"},
			{"delete", "demo"},
		}
		for i, s := range steps {
			if i > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(set.pause):
				}
			}
			if err := run(ctx, cs, ns, s, set); err != nil {
				return err
			}
		}
	case "burst":
		n, _ := strconv.Atoi(args[0])
		changed, err := scene.Burst(ctx, cs, ns, n)
		if err != nil {
			return err
		}
		fmt.Printf("scene: %d label changes (burst=1..%d), then burst- again, on %s\n", n, n, strings.Join(changed, " "))
	case "reset":
		deleted, err := scene.Reset(ctx, cs, ns, "before")
		if err != nil {
			return err
		}
		if len(deleted) == 0 {
			fmt.Printf("scene: nothing to reset in %s\n", ns)
		} else {
			fmt.Printf("scene: deleted %s from %s\n", strings.Join(deleted, " "), ns)
		}
	}
	return nil
}

// parseChange 讀取 kubectl 風格的 KEY=VALUE（設定）或 KEY-（移除）。
//
// parseChange reads kubectl's KEY=VALUE (set) or KEY- (remove) form.
func parseChange(s string) (string, *string, error) {
	if k, ok := strings.CutSuffix(s, "-"); ok && !strings.Contains(s, "=") {
		return k, nil, nil
	}
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return "", nil, fmt.Errorf("%q is neither KEY=VALUE nor KEY-", s)
	}
	return k, &v, nil
}
