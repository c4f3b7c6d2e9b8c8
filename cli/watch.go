package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/watch"
)

// WatchOptions are watch's flags.
type WatchOptions struct {
	Source      sourceFlags
	Once        bool
	Webhook     string
	SecretFile  string
	Slack       string
	JSON        bool
	Filter      string
	MetricsAddr string
	Every       time.Duration
	Digest      time.Duration
	Tell        []string
	LogFormat   string
	// set names the flags given (a profile's watch settings fill in the others).
	set map[string]bool
}

// NewCmdWatch is `exectriage watch`: new flagged writes, duplicate groups and retries left
// indeterminate, told to a webhook, Slack or stdout once each.
func NewCmdWatch(env *Env, runF func(context.Context, *WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "tell a team of new ambiguous writes and duplicates (webhook, Slack, JSON lines), once each",
		Long: "watch follows the source (through the local cache or the team index, within the rate limit), judges\n" +
			"each pass's window as every front does, and tells of what is new: a flagged write (flagged), a duplicate\n" +
			"group (group) or a new member of one (group_member), exectriage's own retry left indeterminate\n" +
			"(unresolved). Every event is kept in the journal's outbox before it is sent, so a restart, a crash or a\n" +
			"second watcher never tells it twice: a webhook whose answer was lost gets it again with the same\n" +
			"webhook-id (its receiver deduplicates); Slack, which cannot, is never sent it again, and its next\n" +
			"message says which alert may not have arrived. Watchers of one journal elect one sender.\n\n" +
			"The webhook is signed as Standard Webhooks with the secret in EXECTRIAGE_WEBHOOK_SECRET or\n" +
			"--webhook-secret-file (whsec_…); the Slack URL comes from --slack or EXECTRIAGE_SLACK_WEBHOOK. Neither\n" +
			"is ever printed, logged or put in an event. SIGTERM finishes the message under way and exits 0.",
		Example: "  exectriage watch --profile prod --slack \"$SLACK_URL\" --filter toolkit:gmail\n" +
			"  EXECTRIAGE_WEBHOOK_SECRET=whsec_… exectriage watch --webhook https://ops.example/hooks --metrics-addr 127.0.0.1:9310\n" +
			"  exectriage watch --once --json --since 1h   # from cron: one pass, remembering where it stopped",
		Args: noArgs("watch"),
		RunE: func(c *cobra.Command, _ []string) error {
			opts.set = map[string]bool{}
			c.Flags().Visit(func(f *flag.Flag) { opts.set[f.Name] = true })
			if opts.Every <= 0 || opts.Digest < 0 {
				return usagef("watch", "--every must be positive and --digest not negative")
			}
			if opts.LogFormat != "text" && opts.LogFormat != "json" {
				return usagef("watch", "--log-format must be text or json")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(watchRun(c.Context(), env, opts))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("watch"))
	fl := cmd.Flags()
	fl.BoolVar(&opts.Once, "once", false, "make one pass, deliver what is due and exit (for cron); the outbox remembers what was told")
	fl.StringVar(
		&opts.Webhook,
		"webhook",
		"",
		"post each event to `URL`, signed as Standard Webhooks (secret: $EXECTRIAGE_WEBHOOK_SECRET or --webhook-secret-file)",
	)
	fl.StringVar(&opts.SecretFile, "webhook-secret-file", "", "read the webhook's signing secret (whsec_…) from `FILE`")
	fl.StringVar(&opts.Slack, "slack", "", "post to the Slack incoming webhook `URL` (default $EXECTRIAGE_SLACK_WEBHOOK)")
	fl.BoolVar(&opts.JSON, "json", false, "write each event as one JSON line on stdout (docs/json.md)")
	fl.StringVar(&opts.Filter, "filter", "", "tell only of executions the filter `QUERY` keeps (e.g. toolkit:gmail)")
	fl.StringVar(&opts.MetricsAddr, "metrics-addr", "", "serve /metrics (Prometheus) and /healthz on `HOST:PORT`")
	fl.DurationVar(&opts.Every, "every", 30*time.Second, "`DURATION` between passes over the source")
	fl.DurationVar(&opts.Digest, "digest", 0, "send each sink at most once every `DURATION`, everything due at once (0: as found)")
	fl.StringSliceVar(&opts.Tell, "tell", nil, "the `KINDS` of event to tell (default all): "+kindNames())
	fl.StringVar(&opts.LogFormat, "log-format", "text", "the log's `FORMAT` on stderr: text or json")
	registerFlagCompletions(cmd, env)
	return cmd
}

func kindNames() string {
	s := make([]string, len(watch.Kinds))
	for i, k := range watch.Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ",")
}

// watchSetup checks the flags and builds what the watcher needs; a usage error says which
// flag is wrong without ever repeating a URL or a secret.
func watchSetup(ctx context.Context, env *Env, opts *WatchOptions) (app.WatchOptions, error) {
	var o app.WatchOptions
	o.Every, o.Digest, o.Once = opts.Every, opts.Digest, opts.Once
	vf, show, err := opts.Source.savedView(ctx, env)
	if err != nil {
		return o, err
	}
	o.Show = show
	if err := tellFilter(&o, strings.TrimSpace(vf+" "+opts.Filter), "--filter"); err != nil {
		return o, err
	}
	if err := tellKinds(&o, opts.Tell, "--tell"); err != nil {
		return o, err
	}
	o.Log = slog.New(slog.NewTextHandler(env.Stderr, nil))
	if opts.LogFormat == "json" { // text or json: NewCmdWatch refuses any other
		o.Log = slog.New(slog.NewJSONHandler(env.Stderr, nil))
	}
	if opts.Webhook != "" {
		if err := checkURL(opts.Webhook); err != nil {
			return o, usagef("watch", "--webhook: %v", err)
		}
		text := env.Getenv("EXECTRIAGE_WEBHOOK_SECRET")
		if opts.SecretFile != "" {
			b, err := os.ReadFile(opts.SecretFile)
			if err != nil {
				return o, usagef("watch", "--webhook-secret-file: %v", errors.Unwrap(err))
			}
			text = string(b)
		}
		if strings.TrimSpace(text) == "" {
			return o, usagef(
				"watch",
				"--webhook needs a signing secret: set EXECTRIAGE_WEBHOOK_SECRET or --webhook-secret-file (whsec_ and base64)",
			)
		}
		secret, err := watch.ParseSecret(text)
		if err != nil {
			return o, usagef("watch", "%v", err)
		}
		o.Sinks = append(o.Sinks, watch.NewWebhook(opts.Webhook, secret))
	}
	slack := cmp.Or(strings.TrimSpace(opts.Slack), strings.TrimSpace(env.Getenv("EXECTRIAGE_SLACK_WEBHOOK")))
	if slack != "" {
		if err := checkURL(slack); err != nil {
			return o, usagef("watch", "the Slack URL: %v", err)
		}
		o.Sinks = append(o.Sinks, watch.NewSlack(slack))
	}
	if opts.JSON {
		o.Sinks = append(o.Sinks, watch.NewJSONLines(env.Stdout))
	}
	if len(o.Sinks) == 0 {
		return o, usagef("watch", "nowhere to tell: give --webhook, --slack (or EXECTRIAGE_SLACK_WEBHOOK) or --json")
	}
	return o, nil
}

// tellFilter sets the filter the watcher tells through; what names where it came from.
func tellFilter(o *app.WatchOptions, text, what string) error {
	q, err := filter.Parse(text)
	if err != nil {
		return usagef("watch", "%s: %s", what, sanitize.String(err.Error()))
	}
	o.Filter, o.Filtered = q, strings.TrimSpace(text) != ""
	return nil
}

// tellKinds sets the kinds of event the watcher tells.
func tellKinds(o *app.WatchOptions, kinds []string, what string) error {
	o.Kinds = nil
	for _, k := range kinds {
		kind := watch.Kind(strings.TrimSpace(k))
		if !slices.Contains(watch.Kinds, kind) {
			return usagef("watch", "%s: %q is not a kind of event (%s)", what, sanitize.String(k), kindNames())
		}
		o.Kinds = append(o.Kinds, kind)
	}
	return nil
}

// fromProfile fills in what the flags did not say from the profile's [profiles.NAME.watch].
func fromProfile(o *app.WatchOptions, opts *WatchOptions, p app.ProfileInfo) error {
	w, where := p.Watch, "profile "+p.Name+"'s watch "
	if !opts.set["filter"] && w.Filter != "" {
		if err := tellFilter(o, w.Filter, where+"filter"); err != nil {
			return err
		}
	}
	if !opts.set["tell"] && len(w.Tell) > 0 {
		if err := tellKinds(o, w.Tell, where+"tell"); err != nil {
			return err
		}
	}
	if !opts.set["digest"] && w.Digest != "" {
		d, err := time.ParseDuration(w.Digest)
		if err != nil || d < 0 {
			return usagef("watch", "%sdigest %q: not a duration (10m, 1h)", where, sanitize.String(w.Digest))
		}
		o.Digest = d
	}
	return nil
}

// checkURL refuses what is not an http(s) URL with a host; the message never repeats it.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("not an http(s) URL")
	}
	return nil
}

func watchRun(ctx context.Context, env *Env, opts *WatchOptions) int {
	sf := &opts.Source
	o, err := watchSetup(ctx, env, opts)
	if err != nil {
		return watchFail(env, err)
	}
	if code, refused := sf.refuseIfReadOnly(env, "watch", "watch keeps its outbox in the journal"); refused {
		return code
	}
	metrics := watch.NewMetrics()
	o.Metrics = metrics
	sf.tune = func(ao *app.Options) {
		ao.OnRequest = metrics.Request
		ao.OnRateWait = func(w app.RateWait) {
			metrics.RateWait()
			o.Log.Info("waiting for the API's rate limit", "wait", w.Wait.Round(time.Second).String(), "refused", w.Refused)
		}
	}
	var srv *http.Server
	if opts.MetricsAddr != "" {
		ln, err := net.Listen("tcp", opts.MetricsAddr)
		if err != nil {
			return usageError(env, "watch", "--metrics-addr: %s", sanitize.String(err.Error()))
		}
		srv = &http.Server{Handler: metrics.Handler(3*opts.Every+2*time.Minute, time.Now()), ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		o.Log.Info("metrics", "addr", ln.Addr().String())
	}
	a, err := sf.open(ctx, env)
	if err != nil {
		return fail(env, "watch", err)
	}
	defer a.Close()
	if err := fromProfile(&o, opts, a.Profile()); err != nil {
		return watchFail(env, err)
	}
	j, err := sf.openJournal(ctx, env)
	if err != nil {
		return fail(env, "watch", err)
	}
	defer j.Close()
	a.UseJournal(j)
	o.Step, o.Hold = watchPause(env)
	if err := a.Watch(ctx, j, o); err != nil {
		return fail(env, "watch", err)
	}
	if ctx.Err() != nil {
		o.Log.Info("stopped")
	}
	return ExitOK
}

// watchFail says a usage error as one line (exit 2) and anything else as fail does.
func watchFail(env *Env, err error) int {
	var ue usageErr
	if errors.As(err, &ue) {
		fmt.Fprintln(env.Stderr, sanitize.String(ue.Error()))
		return ExitUsage
	}
	return fail(env, "watch", err)
}

// testHoldEnv is the crash tests' second hook (see watchPause), not a user's setting.
const testHoldEnv = "EXECTRIAGE_TEST_HOLD"

// watchPause is the crash tests' hook (testPauseEnv): "watch-<step>:<sink>" (step taken, sent
// or finished) prints "EXECTRIAGE_TEST_PAUSE watch-<step>:<sink>" on stderr at that step of the
// first message to that sink and blocks until the process is killed; EXECTRIAGE_TEST_HOLD
// shortens how long a delivery in flight stays the watcher's, so that a restart finds it stale
// at once. Unset, they do nothing.
func watchPause(env *Env) (func(step, sink string, events []watch.Event) error, time.Duration) {
	hold, _ := time.ParseDuration(env.Getenv(testHoldEnv))
	want := strings.TrimSpace(env.Getenv(testPauseEnv))
	if !strings.HasPrefix(want, "watch-") {
		return nil, hold
	}
	return func(step, sink string, _ []watch.Event) error {
		if "watch-"+step+":"+sink == want {
			fmt.Fprintf(env.Stderr, "%s %s\n", testPauseEnv, want)
			for {
				time.Sleep(time.Hour)
			}
		}
		return nil
	}, hold
}
