// step01-listwatcher：親手實作 ListerWatcher，並像 Reflector 一樣先 List 再 Watch。
//
// step01-listwatcher implements a ListerWatcher by hand and runs it the way a
// Reflector does: List, then Watch.
//
//	go run ./step01-listwatcher [-n NAMESPACE] [--watch-timeout 5] [--bookmarks] [--trace]
package main

import (
	"context"
	"flag"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
)

func main() {
	var opts watchOptions
	cli.Main(cli.Step{
		Name:     "step01-listwatcher",
		Pipeline: page,
		Flags: func(fs *flag.FlagSet) {
			fs.Int64Var(&opts.timeoutSeconds, "watch-timeout", 0, "ask the server to end each watch after this many seconds, to see re-watching (0: server default)")
			fs.BoolVar(&opts.bookmarks, "bookmarks", false, "ask for BOOKMARK events (a newer resourceVersion with no object change)")
		},
	}, func(ctx context.Context, env *cli.Env) error {
		return run(ctx, env.Client, env.Namespace, opts, env.Out)
	})
}
