// step05-shared-informer 示範真正的控制器所用的那一層：SharedInformerFactory、v0.37 的型別化 informer
// 與處理函式、lister，以及建在它們上面的步驟 04 控制器。
//
// step05-shared-informer: the layer real controllers use: the
// SharedInformerFactory, v0.37's typed informers and handlers, listers, and
// step 04's controller built on them.
//
//	go run ./step05-shared-informer [-n NAMESPACE] [-l SELECTOR] [--resync 0] [--slow-handler 1s] [--transform=false] [--start-too-early] [--mutate-cache]
//	go run ./step05-shared-informer --controller [--workers 1]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

func main() {
	opts := options{workers: 1}
	cli.Main(cli.Step{
		Name:            "step05-shared-informer",
		Pipeline:        func() liveview.Pipeline { return page(opts) },
		RidesOutOutages: true,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&opts.selector, "label-selector", "", "only pods whose labels match (WithTweakListOptions puts it on the watch request), for example app=demo")
			fs.StringVar(&opts.selector, "l", "", "shorthand for --label-selector")
			fs.DurationVar(&opts.resync, "resync", 0, "the factory's default resync period (0: none)")
			fs.DurationVar(&opts.slow, "slow-handler", 0, "add a second handler that takes this long per event (try 3s): the first one does not wait for it")
			// --transform 預設為 true；它設定的是反面：--transform=false 就是保留 managedFields。
			// --transform defaults to true and sets the opposite field: --transform=false keeps managedFields.
			fs.BoolFunc("transform", "WithTransform: drop managedFields before pods enter the cache (default true; --transform=false keeps them)", func(s string) error {
				transform, err := strconv.ParseBool(s)
				opts.keepManagedFields = !transform
				return err
			})
			fs.BoolVar(&opts.startTooEarly, "start-too-early", false, "make the most common mistake: call factory.Start before asking for the pod informer (no events follow)")
			fs.BoolVar(&opts.mutateCache, "mutate-cache", false, "change a pod taken from the lister without DeepCopy (run with KUBE_CACHE_MUTATION_DETECTOR=true to be caught)")
			fs.BoolVar(&opts.controller, "controller", false, "run step 04's workqueue controller on the factory and the lister instead of the tour")
			fs.IntVar(&opts.workers, "workers", 1, "with --controller: how many workers sync keys in parallel")
		},
		Validate: func() error {
			if _, err := labels.Parse(opts.selector); err != nil {
				return fmt.Errorf("bad --label-selector %q: %w", opts.selector, err)
			}
			if opts.resync < 0 || opts.slow < 0 {
				return errors.New("--resync and --slow-handler must not be negative")
			}
			if opts.workers < 1 {
				return errors.New("--workers must be at least 1")
			}
			if opts.workers != 1 && !opts.controller {
				return errors.New("--workers needs --controller: the tour has no workers")
			}
			if opts.controller && (opts.slow > 0 || opts.startTooEarly || opts.mutateCache) {
				return errors.New("--controller runs the controller alone: leave out --slow-handler, --start-too-early and --mutate-cache")
			}
			return nil
		},
	}, func(ctx context.Context, env *cli.Env) error {
		opts.name = env.InformerName
		return run(ctx, env.Client, env.Namespace, opts, env.Out)
	})
}
