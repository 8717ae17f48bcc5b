// step03-indexer-informer：原始文章的 NewIndexerInformer 與現行的 NewInformerWithOptions，
// 處理函式、當作本機快取的 Indexer、resync 與 HasSynced。
//
// step03-indexer-informer: the source article's NewIndexerInformer and today's
// NewInformerWithOptions, handlers, the Indexer as local cache, resync and
// HasSynced.
//
//	go run ./step03-indexer-informer [-n NAMESPACE] [--constructor options|indexer] [--resync 10s]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

func main() {
	var opts options
	cli.Main(cli.Step{
		Name:            "step03-indexer-informer",
		Pipeline:        func() liveview.Pipeline { return page(opts) },
		RidesOutOutages: true,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&opts.constructor, "constructor", "options", "options: cache.NewInformerWithOptions (today); indexer: cache.NewIndexerInformer (the source article's, deprecated)")
			fs.DurationVar(&opts.resync, "resync", 0, "hand every cached pod to OnUpdate again this often (0: never)")
		},
		Validate: func() error {
			if opts.constructor != "options" && opts.constructor != "indexer" {
				return fmt.Errorf("--constructor must be options or indexer, not %q", opts.constructor)
			}
			if opts.resync < 0 {
				return errors.New("--resync must not be negative")
			}
			return nil
		},
	}, func(ctx context.Context, env *cli.Env) error {
		opts.name = env.InformerName
		return run(ctx, env.Client, env.Namespace, opts, env.Out)
	})
}
