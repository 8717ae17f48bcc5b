package main

import (
	"context"
	"io"
	"sync/atomic"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// tour 依序示範共享 informer 的每一個規則，再印出每次處理函式的呼叫，直到 Ctrl-C。
//
// tour shows each rule of shared informers in turn, then prints every
// handler call until Ctrl-C.
func tour(ctx context.Context, factory informers.SharedInformerFactory, namespace string, opts options, out io.Writer) error {
	if opts.startTooEarly {
		// 常見的錯誤：Start 只啟動「已經有人要過」的 informer。這時還沒有人要，所以它什麼都沒啟動；
		// 之後才要的 informer 永遠不會執行，除非再呼叫一次 Start。
		// The common mistake: Start only starts the informers someone has
		// already asked for. Nobody has yet, so it starts nothing; an informer
		// asked for later never runs unless Start is called again.
		factory.StartWithContext(ctx)
		show.Note(out, "factory.StartWithContext called before any informer was requested: it started nothing")
	}

	// 程式的兩個部分各自向工廠要 Pod 的 informer：一個要加處理函式，一個要讀 lister。
	// Informer() 每次回傳一個新的型別化包裝，所以不能拿它們比較；兩者包著的是同一個 informer，
	// 看快取就知道：GetIndexer() 是同一個。
	// Two parts of the program each ask the factory for the pod informer: one
	// to add handlers, one to read the lister. Informer() returns a new typed
	// wrapper each time, so those cannot be compared; what they wrap is one
	// informer, as the cache shows: GetIndexer() is the same.
	pods := factory.Core().V1().Pods()
	forLister := factory.Core().V1().Pods()
	show.Note(out, "Core().V1().Pods() asked twice: one shared informer underneath (the same Indexer: %t)",
		pods.Informer().GetIndexer() == forLister.Informer().GetIndexer())

	var printed atomic.Int64
	printerReg, err := pods.TypedInformer().AddTypedEventHandler(printer("printer", out, &printed))
	if err != nil {
		return err
	}
	var slowReg cache.ResourceEventHandlerRegistration
	if opts.slow > 0 || opts.slowWait != nil {
		if slowReg, err = pods.TypedInformer().AddTypedEventHandler(slowHandler(ctx, opts, out, &printed)); err != nil {
			return err
		}
	}

	if opts.startTooEarly {
		return startedTooEarly(ctx, factory, printerReg, out)
	}
	// Start 不會等待：它在背景為每個已向工廠要過的 informer 開一個 goroutine。之後的
	// WaitForCacheSyncWithContext 才等待，以 cache.SyncResult 回傳每個 informer 是否同步。
	// Start does not wait: it runs each informer asked for in a goroutine of
	// its own. WaitForCacheSyncWithContext waits, and returns whether each
	// informer synced, as a cache.SyncResult.
	factory.StartWithContext(ctx)
	synced := factory.WaitForCacheSyncWithContext(ctx)
	if synced.AsError() != nil {
		// 只有 ctx 結束（Ctrl-C）時才會這樣。 / This happens only when ctx ended (Ctrl-C).
		return nil
	}
	// informer 同步了，不代表處理函式已經收到初始清單：每個處理函式有自己的佇列與步調。
	// 要知道某個處理函式是否跟上，問它註冊時拿到的 handle。
	// The informer having synced does not mean a handler has had the initial
	// list: each handler has its own queue and its own pace. To know whether
	// one has caught up, ask the handle its registration returned.
	if !cache.WaitFor(ctx, "", printerReg.HasSyncedChecker()) {
		return nil
	}
	show.Note(out, "WaitForCacheSyncWithContext: Synced=%v; printer's registration HasSynced=%t", synced.Synced, printerReg.HasSynced())
	if slowReg != nil {
		show.Note(out, "slow's registration HasSynced=%t: it turns true only once slow's own initial OnAdd calls have run", slowReg.HasSynced())
	}

	if err := lateHandler(ctx, pods, out); err != nil {
		return err
	}
	listed, err := readLister(forLister, namespace, out)
	if err != nil {
		return err
	}
	if opts.mutateCache {
		mutateWithoutDeepCopy(listed, out)
	}
	show.Note(out, "informer synced; watching from there (Ctrl-C to stop)")
	<-ctx.Done()
	show.Note(out, "shutting down: factory.Shutdown waits for the informer's goroutines")
	return nil
}
