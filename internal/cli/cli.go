// Package cli 是每個步驟共用的外層框架：旗標與 kubeconfig、連線前的檢查、--trace、
// 以及 Ctrl-C 的處理。步驟本身只需要寫它要教的那一段。
//
// Package cli is the shell every step shares: flags and kubeconfig, the
// preflight check, --trace, and Ctrl-C handling. A step itself only writes the
// part it teaches.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// Step 是一個步驟交給 cli 的宣告：名字、是否建在 Reflector 上，以及它自己的旗標與檢查。
//
// Step is what a step declares to cli: its name, whether it is built
// on a Reflector, and its own flags and checks.
type Step struct {
	Name string
	// RidesOutOutages：步驟建在 Reflector 上（02 起），Reflector 自己退避重試、撐過 API server 中斷；
	// cli 替它在中斷時印一行說明、回來時再印一行（見 OutageNotes）。步驟 01 自己重試，也自己說明。
	//
	// RidesOutOutages: the step is built on a Reflector (02 on), which backs
	// off and retries through an API server outage on its own; cli
	// prints a line when the outage starts and one when it ends (see
	// OutageNotes). Step 01 retries, and says so, by itself.
	RidesOutOutages bool
	// Flags 註冊步驟自己的旗標；Validate 在連線之前檢查它們的值，只檢查，不設定任何值。
	//
	// Flags registers the step's own flags; Validate checks their values
	// before connecting, and only checks: it assigns nothing.
	Flags    func(fs *flag.FlagSet)
	Validate func() error
	// Pipeline 是即時頁面（--ui）畫的階段：只有這一步真的有、真的觀察得到的那些。
	//
	// Pipeline is the stages the live page (--ui) draws: only those the step
	// really has and really observes.
	Pipeline func() liveview.Pipeline
}

// Flags 是每個步驟都有的旗標，名稱與 kubectl 相同。
//
// Flags are the flags every step has, named as kubectl names them.
type Flags struct {
	Kubeconfig string
	Context    string
	Namespace  string
	As         string
	Trace      bool
	Verbosity  int
}

// Register 把共用旗標加到 fs 上；-n 與 --namespace 是同一個旗標。
//
// Register adds the shared flags to fs; -n and --namespace are one flag.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&f.Context, "context", "", "kubeconfig context to use (default: the current context)")
	fs.StringVar(&f.Namespace, "namespace", "", "namespace to watch (default: the context's namespace, else \"default\")")
	fs.StringVar(&f.Namespace, "n", "", "shorthand for --namespace")
	fs.StringVar(&f.As, "as", "", "act as this user (impersonation, as kubectl --as): see what a user without rights meets")
	fs.BoolVar(&f.Trace, "trace", false, "print every HTTP request the client makes (method, path and query, status) to stderr")
	fs.IntVar(&f.Verbosity, "v", 0, "client-go log verbosity (klog -v)")
}

// Env 是步驟執行時需要的一切：連線設定、clientset、namespace 與輸出。
//
// Env is everything a step needs at run time: the connection config, a
// clientset, the namespace and where to print.
type Env struct {
	Config    *rest.Config
	Client    kubernetes.Interface
	Namespace string
	Out       io.Writer
	// InformerName 是這個程式的 informer 名字（步驟的名字）：有名字的 informer 才回報 client-go 的 informer
	// metrics（v0.37）。一個行程裡名字必須唯一；測試直接呼叫課程時沒有名字，是 nil。
	//
	// InformerName names this program's informers (the step's name): only
	// named informers report client-go's informer metrics (v0.37). A name is
	// unique within a process; tests that call a lesson directly have none,
	// nil.
	InformerName *cache.InformerName
}

// Main 註冊共用旗標與步驟的旗標、解析、檢查、建立連線、先確認叢集可達，再執行 run。
// run 在 Ctrl-C 之後結束時，程式以 0 結束；其他錯誤印成一行並以 1 結束。錯誤的參數不會送出任何請求。
//
// Main registers the shared flags and the step's, parses and validates them,
// connects, checks that the cluster answers, then calls run. When run returns
// after Ctrl-C the program exits 0; any other error is printed as one line
// and the exit code is 1. Bad arguments never cause a request.
func Main(step Step, run func(ctx context.Context, env *Env) error) {
	var f Flags
	f.Register(flag.CommandLine)
	var ui uiFlag
	var record string
	flag.Var(&ui, "ui", "serve a live page of this step's pipeline on 127.0.0.1 (a free port; --ui=ADDR to choose; a non-loopback ADDR such as 0.0.0.0:8080 is for a remote lab: its URL then carries a token every request needs) and print its URL")
	flag.StringVar(&record, "record", "", "write every event to this file (JSON Lines) for scripts/liveview.sh to replay or export")
	if step.Flags != nil {
		step.Flags(flag.CommandLine)
	}
	ParseFlags(step.Name, flag.CommandLine, os.Args[1:])
	if flag.NArg() > 0 {
		usageError(step.Name, fmt.Errorf("unexpected argument %q", flag.Arg(0)))
	}
	if ui.on && ui.addr != "" {
		if _, err := liveview.Remote(ui.addr); err != nil {
			usageError(step.Name, fmt.Errorf("--ui %q: %v", ui.addr, err))
		}
	}
	if step.Validate != nil {
		if err := step.Validate(); err != nil {
			usageError(step.Name, err)
		}
	}
	setVerbosity(f.Verbosity)
	var pipeline liveview.Pipeline
	if step.Pipeline != nil {
		pipeline = step.Pipeline()
	}
	// Ctrl-C 在頁面的網址印出之前就要接住：一印出就按下的 Ctrl-C 也讓步驟好好收尾（錄製檔完整關閉），
	// 而不是被訊號殺掉。
	// Ctrl-C is caught before the page's URL is printed: one pressed as soon as it shows still lets the step
	// finish cleanly (the recording closed whole) instead of the signal killing it.
	ctx, stop := interruptible()
	defer stop()
	lv, err := StartLive(pipeline, ui.on, ui.addr, record, os.Stdout)
	if err != nil {
		fail(step.Name, err)
	}
	var out io.Writer = os.Stdout
	if lv != nil {
		out = lv.Out()
	}
	if err := mainLoop(ctx, step, &f, lv, out, run); err != nil {
		fail(step.Name, err)
	}
}

// interruptible 回傳一個 Ctrl-C（或 SIGTERM、SIGHUP：終端機被關掉）時結束的 context。第一次 Ctrl-C 讓步驟好好收尾；
// 之後再按一次就恢復預設行為，立刻結束。
//
// interruptible returns a context that ends on Ctrl-C (or SIGTERM, or SIGHUP:
// the terminal closed). The first Ctrl-C lets the step finish cleanly; a
// second one gets the default behaviour and ends the program at once.
func interruptible() (context.Context, func()) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// mainLoop 連線、執行 run，最後關掉頁面與錄製；回傳要印成一行的錯誤（Ctrl-C 之後沒有）。ctx 在 Ctrl-C 時結束
// （見 interruptible）。
//
// mainLoop connects, calls run, then closes the page and the recording; it
// returns the error to print as one line (none after Ctrl-C). ctx ends on
// Ctrl-C (see interruptible).
func mainLoop(ctx context.Context, step Step, f *Flags, lv *Live, out io.Writer, run func(ctx context.Context, env *Env) error) (err error) {
	defer func() { err = errors.Join(err, lv.Close()) }()
	env, err := Connect(ctx, f, step.RidesOutOutages, out, os.Stderr)
	if ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return err
	}
	if lv != nil {
		lv.announce(os.Stderr, env)
	}
	if env.InformerName, err = cache.NewInformerName(step.Name); err != nil {
		return err
	}
	defer env.InformerName.Release()
	if err := run(ctx, env); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// ParseFlags 以 fs 解析 args。-h 印出完整的用法並以 0 結束；其他錯誤（例如不認得的旗標）只印一行並以 2 結束，
// 不像 flag 套件預設的那樣，在錯誤後面再附上三十幾行用法。每個步驟（經由 Main）與 scene 都用它。
//
// ParseFlags parses args with fs. -h prints the whole usage and exits 0; any
// other error (an unknown flag, say) prints one line and exits 2, instead of
// the flag package's default of thirty-odd lines of usage after the error.
// Every step (through Main) and scene use it.
func ParseFlags(name string, fs *flag.FlagSet, args []string) {
	var usage strings.Builder
	fs.Init(name, flag.ContinueOnError)
	fs.SetOutput(&usage)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(os.Stderr, usage.String())
		os.Exit(0)
	case err != nil:
		usageError(name, err)
	}
	fs.SetOutput(os.Stderr)
}

// usageError 印出用錯了命令列的那一行，以 2 結束，跟 flag 套件的慣例一樣；執行時的錯誤才是 1。
//
// usageError prints the one line for a command line used wrongly and exits
// 2, the flag package's convention; errors at run time exit 1.
func usageError(name string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v (see -h)\n", name, err)
	os.Exit(2)
}

func fail(name string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}

func setVerbosity(v int) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("v", strconv.Itoa(v))
}

// Connect 依 kubectl 的規則讀取 kubeconfig（--kubeconfig，否則 $KUBECONFIG，否則 ~/.kube/config），
// 需要時加上 --as 與 --trace，並在幾秒內確認 API server 有回應；noteOutages 時再加上 OutageNotes。
//
// Connect loads the kubeconfig by kubectl's rules (--kubeconfig, else
// $KUBECONFIG, else ~/.kube/config), adds --as and --trace when asked,
// checks within seconds that the API server answers, and with noteOutages
// adds OutageNotes.
func Connect(ctx context.Context, f *Flags, noteOutages bool, out, traceOut io.Writer) (*Env, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.Kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: f.Context}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)

	cfg, err := loader.ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		return nil, errors.New("no kubeconfig found ($KUBECONFIG and ~/.kube/config are empty or missing); start a cluster with scripts/cluster-up.sh")
	}
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig: %w", err)
	}
	ns := f.Namespace
	if ns == "" {
		if ns, _, err = loader.Namespace(); err != nil {
			return nil, fmt.Errorf("reading kubeconfig: %w", err)
		}
	}
	if f.As != "" {
		cfg.Impersonate.UserName = f.As
	}
	if f.Trace {
		cfg.Wrap(Tracer(traceOut))
	}
	if s, ok := out.(*show.Stream); ok {
		cfg.Wrap(RequestEvents(s))
	}
	if err := preflight(ctx, cfg); err != nil {
		return nil, err
	}
	// 中斷的說明在連線前檢查通過之後才加上：檢查失敗時程式只印一行錯誤就結束，不會重試，
	// 說它「會一直重試」就不對了。
	// The outage notes are added only after the preflight check passed: when
	// the check fails the program prints one error line and exits without
	// retrying, so a note saying it keeps retrying would be wrong.
	if noteOutages {
		cfg.Wrap(OutageNotes(out))
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Env{Config: cfg, Client: cs, Namespace: ns, Out: out}, nil
}

// preflightTimeout 是等待 API server 回應的上限，超過就直接回報錯誤，不無限重試（測試會把它改短）。
//
// preflightTimeout bounds the wait for the API server's answer; past it we
// report the error instead of retrying forever (the tests shorten it).
var preflightTimeout = 5 * time.Second

// preflight 向 /version 發一個請求：沒有叢集、憑證錯誤或 context 錯誤，
// 都在這裡變成一行清楚的錯誤，而不是 informer 無止境的重試 log。
//
// preflight makes one request to /version: no cluster, bad credentials or the
// wrong context all become one clear line here, instead of an informer's
// endless retry log.
func preflight(ctx context.Context, cfg *rest.Config) error {
	check := rest.CopyConfig(cfg)
	check.Timeout = preflightTimeout
	cs, err := kubernetes.NewForConfig(check)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	if _, err := cs.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Raw(); err != nil {
		return fmt.Errorf("cannot reach the Kubernetes API server at %s: %s; start a cluster with scripts/cluster-up.sh (or pick one with --context)",
			cfg.Host, oneLine(err))
	}
	return nil
}

// oneLine 把多行的錯誤壓成一行。
//
// oneLine folds a multi-line error into one line.
func oneLine(err error) string {
	s := []rune(err.Error())
	for i, r := range s {
		if r == '\n' {
			s[i] = ' '
		}
	}
	return string(s)
}
