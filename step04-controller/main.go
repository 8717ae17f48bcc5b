// step04-controller：親手用 cache.New 組出 informer（Reflector → RealFIFO → processLoop），
// 再在上面加一個標準的 workqueue 控制器。
//
// step04-controller assembles the informer by hand with cache.New (Reflector
// → RealFIFO → processLoop), then puts the canonical workqueue controller on
// top.
//
//	go run ./step04-controller [-n NAMESPACE] [--fifo atomic|per-object] [--resync 0] [--workers 1] [--sync-time 0] [--max-retries 5] [--base-delay 5ms]
//	scripts/scene.sh annotate demo informer-lab/fail=true    (make demo's sync fail)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

func main() {
	var f cli.Flags
	f.Register(flag.CommandLine)
	// 這一步的 Reflector 會撐過 API server 中斷；讓它在輸出中說明。 / This step's Reflector rides out an API server outage; have it say so.
	f.NoteOutages = true
	opts := options{}
	flag.IntVar(&opts.workers, "workers", 1, "how many workers sync keys in parallel")
	flag.IntVar(&opts.maxRetries, "max-retries", 5, "retries of a failing key before it is dropped")
	flag.DurationVar(&opts.baseDelay, "base-delay", 5*time.Millisecond, "wait before the first retry; it doubles each time (try 1s to follow along)")
	flag.DurationVar(&opts.syncTime, "sync-time", 0, "how long each sync pretends to work, as a real one calling an API would (try 300ms with --workers 3 and scene.sh burst 20)")
	fifo := flag.String("fifo", "atomic", "the informer's queue: atomic (v0.37.2's default: a list is one ReplacedAll) or per-object (KUBE_FEATURE_AtomicFIFO=false, as older articles show)")
	flag.DurationVar(&opts.resync, "resync", 0, "full resync period (0: none); each resync is one SyncAll")
	check := func() error {
		switch *fifo {
		case "atomic", "per-object":
			opts.perObject = *fifo == "per-object"
		default:
			return fmt.Errorf("--fifo must be atomic or per-object, not %q", *fifo)
		}
		if opts.resync < 0 {
			return errors.New("--resync must not be negative")
		}
		if opts.workers < 1 || opts.maxRetries < 0 || opts.baseDelay <= 0 || opts.syncTime < 0 {
			return errors.New("--workers must be at least 1, --max-retries at least 0, --base-delay positive, --sync-time not negative")
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
	queue := "RealFIFO (atomic events, batches)"
	if opts.perObject {
		queue = "RealFIFO (per-object deltas, batches)"
	}
	show.Note(out, "controller for pods in namespace %q: Reflector -> %s -> processLoop -> Indexer + handlers -> workqueue -> workers (Ctrl-C to stop)", namespace, queue)
	newController(client, namespace, opts, out).run(ctx)
	return nil
}
