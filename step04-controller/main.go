// step04-controller：親手用 cache.New 組出 informer（Reflector → RealFIFO → processLoop），
// 再在上面加一個標準的 workqueue 控制器。
//
// step04-controller assembles the informer by hand with cache.New (Reflector
// → RealFIFO → processLoop), then puts the canonical workqueue controller on
// top.
//
//	go run ./step04-controller [-n NAMESPACE] [--fifo atomic|per-object] [--resync 0] [--workers 1] [--sync-time 0] [--why] [--limiter default|per-key] [--max-retries 5] [--base-delay 5ms]
//	scripts/scene.sh annotate demo informer-lab/fail=true    (make demo's sync fail)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

func main() {
	opts := options{}
	cli.Main(cli.Step{
		Name:            "step04-controller",
		Pipeline:        func() liveview.Pipeline { return page(opts) },
		RidesOutOutages: true,
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&opts.workers, "workers", 1, "how many workers sync keys in parallel")
			fs.IntVar(&opts.maxRetries, "max-retries", 5, "retries of a failing key before it is dropped")
			fs.DurationVar(&opts.baseDelay, "base-delay", 5*time.Millisecond, "wait before the first retry; it doubles each time (try 1s to follow along)")
			fs.BoolVar(&opts.why, "why", false, "before each sync, say which events queued its key since its last sync (several changes, one sync)")
			fs.DurationVar(&opts.syncTime, "sync-time", 0, "how long each sync pretends to work, as a real one calling an API would (try 300ms with --workers 3 and scene.sh burst 20)")
			fs.StringVar(&opts.limiter, "limiter", "default", "the workqueue's rate limiter: default (each key's backoff and a shared token bucket, 10/s burst 100) or per-key (the backoff only); try scene.sh failing 150")
			fs.StringVar(&opts.fifo, "fifo", "atomic", "the informer's queue: atomic (v0.37.2's default: a list is one ReplacedAll) or per-object (KUBE_FEATURE_AtomicFIFO=false, as older articles show)")
			fs.DurationVar(&opts.resync, "resync", 0, "full resync period (0: none); each resync is one SyncAll")
		},
		Validate: func() error {
			if opts.fifo != "atomic" && opts.fifo != "per-object" {
				return fmt.Errorf("--fifo must be atomic or per-object, not %q", opts.fifo)
			}
			if opts.limiter != "default" && opts.limiter != "per-key" {
				return fmt.Errorf("--limiter must be default or per-key, not %q", opts.limiter)
			}
			if opts.resync < 0 {
				return errors.New("--resync must not be negative")
			}
			if opts.workers < 1 || opts.maxRetries < 0 || opts.baseDelay <= 0 || opts.syncTime < 0 {
				return errors.New("--workers must be at least 1, --max-retries at least 0, --base-delay positive, --sync-time not negative")
			}
			return nil
		},
	}, func(ctx context.Context, env *cli.Env) error {
		opts.name = env.InformerName
		return run(ctx, env.Client, env.Namespace, opts, env.Out)
	})
}
