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
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
)

const usage = `usage: scene [flags] COMMAND [ARGS]

scene makes pod changes for the steps to observe (and, for step 07, deletes a
tally or its report, or overwrites a tally's count), in the namespace of your
kubeconfig's context (or -n).
It needs only Go.

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
  failing N                     create N pods (failing-1..N) whose sync fails on purpose
                                (informer-lab/fail=true), to see step 04's rate limiters
  reset                         delete every pod scene created in the namespace, except "before"
  delete-configmap NAME         delete a ConfigMap and wait until it is gone (step 07: a tally's report)
  delete-tally NAME             delete a PodTally and wait until it is gone (its finalizers hold it until
                                the controller takes them off), then until the garbage collector has
                                deleted the ConfigMaps it owned (step 07)
  tally-count NAME N            set a PodTally's status.count to N as another writer would (step 07: the
                                predicate drops that update, and only --recount puts the count right)

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
		fmt.Fprintln(os.Stderr, "scene: no command given ("+scene.CommandList+"; see -h)")
		os.Exit(2)
	}

	if err := scene.Check(args); err != nil {
		fmt.Fprintf(os.Stderr, "scene: %v\n", err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, err := cli.Connect(ctx, &f, false, os.Stdout, os.Stderr)
	if err == nil && (args[0] == "burst" || args[0] == "failing") {
		// client-go 預設每秒 5 個請求，burst 與 failing 就快不起來；這裡放寬，變化才會比同步快。
		// client-go's default of 5 requests a second would slow burst and failing down; lift it, so changes outpace syncs.
		fast := restclient.CopyConfig(env.Config)
		fast.QPS, fast.Burst = 100, 200
		env.Client, err = kubernetes.NewForConfig(fast)
	}
	if err == nil {
		err = scene.Run(ctx, env.Client, env.Namespace, args, scene.Settings{Pause: *pause, Node: *node}, func(s string) { fmt.Println("scene: " + s) })
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "scene: %v\n", err)
		os.Exit(1)
	}
}
