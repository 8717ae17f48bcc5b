// step02-listwatch-from-client：用 client-go 的 NewListWatchFromClient 取代手寫的
// ListerWatcher，看 optionsModifier 如何把選擇器帶進每一個 List 與 Watch 請求。
//
// step02-listwatch-from-client replaces the hand-written ListerWatcher with
// client-go's NewListWatchFromClient, and shows how the optionsModifier puts
// the selectors into every List and Watch request.
//
//	go run ./step02-listwatch-from-client [-n NAMESPACE] [-l app=demo] [--field-selector status.phase=Pending] [--trace]
package main

import (
	"context"
	"flag"
	"fmt"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
)

func main() {
	var labelFlag, fieldFlag string
	cli.Main(cli.Step{
		Name:            "step02-listwatch-from-client",
		Pipeline:        page,
		RidesOutOutages: true,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&labelFlag, "label-selector", "", "only pods whose labels match, for example app=demo or 'tier in (web,api)'")
			fs.StringVar(&labelFlag, "l", "", "shorthand for --label-selector")
			fs.StringVar(&fieldFlag, "field-selector", "", "only pods whose fields match, for example status.phase=Pending")
		},
		Validate: func() error {
			_, _, err := selectors(labelFlag, fieldFlag)
			return err
		},
	}, func(ctx context.Context, env *cli.Env) error {
		labelSelector, fieldSelector, err := selectors(labelFlag, fieldFlag)
		if err != nil {
			return err
		}
		return run(ctx, env.Client, env.Namespace, fieldSelector, labelSelector, env.Out)
	})
}

// selectors 解析兩個選擇器旗標；Validate 在連線前呼叫它一次，run 再呼叫一次取得結果。
//
// selectors parses the two selector flags; Validate calls it once before
// connecting, and run again for the result.
func selectors(labelFlag, fieldFlag string) (labels.Selector, fields.Selector, error) {
	l, err := labels.Parse(labelFlag)
	if err != nil {
		return nil, nil, fmt.Errorf("bad --label-selector %q: %w", labelFlag, err)
	}
	f, err := fields.ParseSelector(fieldFlag)
	if err != nil {
		return nil, nil, fmt.Errorf("bad --field-selector %q: %w", fieldFlag, err)
	}
	return l, f, nil
}
