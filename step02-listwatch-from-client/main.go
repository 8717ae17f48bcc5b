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
	var f cli.Flags
	f.Register(flag.CommandLine)
	// 這一步的 Reflector 會撐過 API server 中斷；讓它在輸出中說明。 / This step's Reflector rides out an API server outage; have it say so.
	f.NoteOutages = true
	var labelFlag, fieldFlag string
	flag.StringVar(&labelFlag, "label-selector", "", "only pods whose labels match, for example app=demo or 'tier in (web,api)'")
	flag.StringVar(&labelFlag, "l", "", "shorthand for --label-selector")
	flag.StringVar(&fieldFlag, "field-selector", "", "only pods whose fields match, for example status.phase=Pending")

	var labelSelector labels.Selector
	var fieldSelector fields.Selector
	parseSelectors := func() (err error) {
		if labelSelector, err = labels.Parse(labelFlag); err != nil {
			return fmt.Errorf("bad --label-selector %q: %w", labelFlag, err)
		}
		if fieldSelector, err = fields.ParseSelector(fieldFlag); err != nil {
			return fmt.Errorf("bad --field-selector %q: %w", fieldFlag, err)
		}
		return nil
	}

	cli.Main("step02-listwatch-from-client", &f, func(ctx context.Context, env *cli.Env) error {
		return run(ctx, env.Client, env.Namespace, fieldSelector, labelSelector, env.Out)
	}, parseSelectors)
}
