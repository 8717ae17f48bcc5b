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
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

const usage = `usage: scene [flags] COMMAND [ARGS]

commands:
  create NAME [KEY=VALUE ...]   create a pod with these labels (and wait until it runs, if the cluster has a node)
  label NAME KEY=VALUE|KEY-     set or remove a label
  annotate NAME KEY=VALUE|KEY-  set or remove an annotation
  delete NAME                   delete a pod as kubectl delete does (and wait until it is gone)
  demo                          create, relabel and delete the pod "demo"

flags:
`

func main() {
	var f cli.Flags
	fs := flag.NewFlagSet("scene", flag.ExitOnError)
	f.Register(fs)
	pause := fs.Duration("pause", time.Second, "demo: time between changes, so a human can follow")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}

	// 旗標可以放在指令前後：反覆解析，把非旗標的參數收集起來。
	// Flags may come before or after the command: parse repeatedly and
	// collect the arguments that are not flags.
	var args []string
	rest := os.Args[1:]
	for {
		_ = fs.Parse(rest)
		if fs.NArg() == 0 {
			break
		}
		args = append(args, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(args) == 0 {
		fs.Usage()
		os.Exit(2)
	}

	if err := checkArgs(args); err != nil {
		fmt.Fprintf(os.Stderr, "scene: %v\n", err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, err := cli.Connect(ctx, &f, os.Stdout, os.Stderr)
	if err == nil {
		err = run(ctx, env.Client, env.Namespace, args, *pause)
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "scene: %v\n", err)
		os.Exit(1)
	}
}

// commands 是每個指令接受的參數個數（max < 0 表示沒有上限）與用法。
//
// commands lists each command's argument count (max < 0: no limit) and usage.
// settleTimeout 是等 Pod 跑起來或消失的上限。 / settleTimeout bounds the wait for a pod to run or to be gone.
const settleTimeout = 30 * time.Second

var commands = map[string]struct {
	min, max int
	form     string
}{
	"create":   {1, -1, "NAME [KEY=VALUE ...]"},
	"label":    {2, 2, "NAME KEY=VALUE|KEY-"},
	"annotate": {2, 2, "NAME KEY=VALUE|KEY-"},
	"delete":   {1, 1, "NAME"},
	"demo":     {0, 0, ""},
}

// checkArgs 在連線之前檢查指令與參數個數，錯誤的用法不會送出任何請求。
//
// checkArgs checks the command and its argument count before connecting, so
// a wrong usage makes no request.
func checkArgs(args []string) error {
	c, ok := commands[args[0]]
	if !ok {
		return fmt.Errorf("unknown command %q (create, label, annotate, delete, demo)", args[0])
	}
	if n := len(args) - 1; n < c.min || (c.max >= 0 && n > c.max) {
		return fmt.Errorf("usage: scene %s %s", args[0], c.form)
	}
	return nil
}

func run(ctx context.Context, cs kubernetes.Interface, ns string, args []string, pause time.Duration) error {
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
		if _, err := scene.Create(ctx, cs, ns, args[0], labels); err != nil {
			return err
		}
		// 等 Pod 跑起來（或沒有節點時不等），下一個變化才不會跟排程、kwok 的狀態更新交錯。
		// Wait until the pod runs (or not at all without nodes), so the next change does not interleave with scheduling and kwok's status updates.
		if err := scene.Settle(ctx, cs, ns, args[0], settleTimeout); err != nil {
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
				case <-time.After(pause):
				}
			}
			if err := run(ctx, cs, ns, s, pause); err != nil {
				return err
			}
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
