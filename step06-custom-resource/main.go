// step06-custom-resource 示範自己的資源：一個 CRD（PodTally），用 code-generator 產生的 clientset、
// informer 與 lister，一個只看 metadata 的 Pod informer，以及一個安全地寫 status 的控制器。
//
// step06-custom-resource: your own resource. A CRD (PodTally), the
// clientset, informers and listers code-generator writes for it, a
// metadata-only pod informer, and a controller that writes status safely.
//
//	go run ./step06-custom-resource [-n NAMESPACE] [--workers 1] [--dynamic] [--stale-write [--retry-on-conflict]] [--demo-tally=false]
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
		Pipeline:        pipeline,
		RidesOutOutages: true,
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&opts.workers, "workers", 1, "how many workers sync tallies in parallel")
			fs.BoolVar(&opts.dynamic, "dynamic", false, "watch tallies through dynamicinformer (unstructured objects) instead of the generated informer")
			fs.BoolVar(&opts.staleWrite, "stale-write", false, "make a classic mistake: keep the first copy of each tally and write every status from it (each later write earns 409 Conflict)")
			fs.BoolVar(&opts.retryOnConflict, "retry-on-conflict", false, "on 409 Conflict, read the tally again from the API server and retry (retry.RetryOnConflict)")
			fs.BoolVar(&opts.demoTally, "demo-tally", true, "create the PodTally app-demo (selector app=demo) when the namespace has none of that name")
		},
		Validate: func() error {
			if opts.workers < 1 {
				return errors.New("--workers must be at least 1")
			}
			return nil
		},
	}, func(ctx context.Context, env *cli.Env) error {
		opts.name = env.InformerName
		return run(ctx, env.Config, env.Namespace, opts, env.Out)
	})
}

// pipeline 是這一步在即時頁面（--ui）上的階段：兩個 informer 餵同一個 workqueue，worker 寫回 status。
// 只有具名的 informer（產生的那一個）會回報佇列深度；metadata 與 dynamic 的 informer
// 沒有 InformerName 選項，所以頁面畫成不透明、沒有深度。
//
// pipeline is this step's stages on the live page (--ui): two informers
// feed one workqueue, and workers write status back. Only named informers
// report their queue depth (the generated one); the metadata and dynamic
// informers take no InformerName, so the page draws them opaque, without a
// depth.
func pipeline() liveview.Pipeline {
	tallies := liveview.StageOf("tallies", "tallies")
	tallies.Opaque = true
	tallies.Depth, tallies.DepthOf = "informer_queued_items", "podtallys"
	pods := liveview.StageOf("pods", "pods")
	pods.Opaque = true
	workqueue := liveview.StageOf("workqueue")
	workqueue.Depth = "workqueue_depth"
	return liveview.Pipeline{
		Step:    "step06-custom-resource",
		Title:   liveview.Text{En: "Step 06: your own resource, generated and metadata-only informers", Zh: "步驟 06：自己的資源、產生的 informer 與只看 metadata 的 informer"},
		Chapter: liveview.Chapter("06-custom-resource"),
		Stages:  []liveview.Stage{liveview.StageOf("api", "request"), tallies, pods, workqueue, liveview.StageOf("workers", "worker*")},
		Panels:  []string{"workqueue"},
	}
}
