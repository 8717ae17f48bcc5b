// step04-controller：親手用 cache.New 組出 informer（Reflector → RealFIFO → processLoop），
// 再在上面加一個標準的 workqueue 控制器。
//
// step04-controller assembles the informer by hand with cache.New (Reflector
// → RealFIFO → processLoop), then puts the canonical workqueue controller on
// top.
//
//	go run ./step04-controller [-n NAMESPACE] [--workers 1] [--max-retries 5] [--base-delay 5ms]
//	scripts/scene.sh annotate demo informer-lab/fail=true    (make demo's sync fail)
package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

func main() {
	var f cli.Flags
	f.Register(flag.CommandLine)
	opts := options{}
	flag.IntVar(&opts.workers, "workers", 1, "how many workers sync keys in parallel")
	flag.IntVar(&opts.maxRetries, "max-retries", 5, "retries of a failing key before it is dropped")
	flag.DurationVar(&opts.baseDelay, "base-delay", 5*time.Millisecond, "wait before the first retry; it doubles each time (try 1s to follow along)")
	check := func() error {
		if opts.workers < 1 || opts.maxRetries < 0 || opts.baseDelay <= 0 {
			return errors.New("--workers must be at least 1, --max-retries at least 0, --base-delay positive")
		}
		return nil
	}

	cli.Main("step04-controller", &f, func(ctx context.Context, env *cli.Env) error {
		return run(ctx, env.Client, env.Namespace, opts, env.Out)
	}, check)
}

// run 建立並執行控制器，直到 ctx 結束。
//
// run builds and runs the controller until ctx ends.
func run(ctx context.Context, client kubernetes.Interface, namespace string, opts options, out io.Writer) error {
	show.Note(out, "controller for pods in namespace %q: Reflector -> RealFIFO -> processLoop -> Indexer + handlers -> workqueue -> workers (Ctrl-C to stop)", namespace)
	newController(client, namespace, opts, out).run(ctx)
	return nil
}
