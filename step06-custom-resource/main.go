// step06-custom-resource 示範自己的資源：一個 CRD（PodTally），用 code-generator 產生的 clientset、
// informer 與 lister，一個只看 metadata 的 Pod informer，以及一個安全地寫 status 的控制器。
//
// step06-custom-resource: your own resource. A CRD (PodTally), the
// clientset, informers and listers code-generator writes for it, a
// metadata-only pod informer, and a controller that writes status safely.
//
//	go run ./step06-custom-resource [-n NAMESPACE] [--workers 1] [--dynamic] [--stale-write [--retry-on-conflict]] [--apply] [--demo-tally=false]
package main

import (
	"context"
	"errors"
	"flag"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

func main() {
	opts := options{workers: 1, demoTally: true}
	cli.Main(cli.Step{
		Name:            "step06-custom-resource",
		Pipeline:        func() liveview.Pipeline { return page(opts) },
		RidesOutOutages: true,
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&opts.workers, "workers", 1, "how many workers sync tallies in parallel")
			fs.BoolVar(&opts.dynamic, "dynamic", false, "watch tallies through dynamicinformer (unstructured objects) instead of the generated informer")
			fs.BoolVar(&opts.staleWrite, "stale-write", false, "make a classic mistake: keep the first copy of each tally and write every status from it (each later write earns 409 Conflict)")
			fs.BoolVar(&opts.retryOnConflict, "retry-on-conflict", false, "on 409 Conflict, read the tally again from the API server and retry (retry.RetryOnConflict)")
			fs.BoolVar(&opts.apply, "apply", false, "write status with server-side apply (field manager "+fieldManager+"): no resourceVersion, so no 409 from a stale copy; fields merged by owner")
			fs.DurationVar(&opts.watchDelay, "watch-delay", 0, "drill: hand every watch event to the informers this much late, and read each status write back from the lister at once (0: off)")
			fs.BoolVar(&opts.waitForCache, "wait-for-cache", false, "before acting on a tally, check that the lister no longer holds the copy this controller's last write replaced; if it does, requeue shortly")
			fs.BoolVar(&opts.demoTally, "demo-tally", true, "create the PodTally app-demo (selector app=demo) when the namespace has none of that name")
		},
		Validate: func() error {
			if opts.workers < 1 {
				return errors.New("--workers must be at least 1")
			}
			if opts.watchDelay < 0 {
				return errors.New("--watch-delay must not be negative")
			}
			return nil
		},
	}, func(ctx context.Context, env *cli.Env) error {
		opts.name = env.InformerName
		return run(ctx, env.Config, env.Namespace, opts, env.Out)
	})
}
