package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra/doc"
)

// manDate is the date the man pages carry: fixed, so that regenerating them changes nothing
// unless the commands did.
func manDate() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }

// WriteManPages writes one man page per command into dir (section 1), from the command tree
// Run uses.
func WriteManPages(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	root := NewRootCmd(OSEnv())
	root.DisableAutoGenTag = true
	date := manDate()
	hdr := &doc.GenManHeader{Title: "EXECTRIAGE", Section: "1", Date: &date, Source: "exectriage " + Version, Manual: "exectriage manual"}
	if err := doc.GenManTree(root, hdr, dir); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	// cobra writes NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXAMPLE and SEE ALSO; every page also
	// gets what a man page reader looks for: ENVIRONMENT, FILES and EXIT STATUS.
	pages, err := filepath.Glob(filepath.Join(dir, "*.1"))
	if err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	extra := manSections()
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("man pages: %w", err)
		}
		text := string(b)
		if i := strings.Index(text, ".SH SEE ALSO"); i >= 0 {
			text = text[:i] + extra + text[i:]
		} else {
			text += extra
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return fmt.Errorf("man pages: %w", err)
		}
	}
	return nil
}

// manEnvironment are the variables exectriage reads, each with what it does.
var manEnvironment = [][2]string{
	{"COMPOSIO_API_KEY", "the project API key; when set, the live API is the default source (else a Composio CLI login, else the demo)"},
	{"COMPOSIO_BASE_URL", "the API base URL (default https://backend.composio.dev)"},
	{"COMPOSIO_ORG_ID, COMPOSIO_PROJECT_ID", "the org and project a user key (uak_) acts on, when the login file does not name them"},
	{"COMPOSIO_CACHE_DIR", "where the Composio CLI keeps its login (user_data.json; default ~/.composio)"},
	{"EXECTRIAGE_CONFIG", "the config file (default $XDG_CONFIG_HOME/exectriage/config.toml)"},
	{"EXECTRIAGE_PROFILE", "the profile to use, as --profile"},
	{"EXECTRIAGE_JOURNAL", "the journal: a SQLite path or a PostgreSQL DSN (a team journal)"},
	{"EXECTRIAGE_WHO", "the name the journal records (default user@host)"},
	{"EXECTRIAGE_CACHE", "off: neither use nor keep the local cache of the API's logs (nor the team index), as --no-cache"},
	{
		"EXECTRIAGE_INDEX",
		"the team index (postgres://…) the API's logs are read from and kept in, when neither --index nor the profile's index names one; " +
			"see exectriage-sync(1)",
	},
	{"EXECTRIAGE_MAX_GZIP_RATIO", "a gzipped --file expanding past 64 MB to more than this many times its size is refused (default 100)"},
	{"NO_COLOR, CLICOLOR_FORCE", "with --color auto, NO_COLOR turns colour off and CLICOLOR_FORCE (not 0) on"},
	{"BROWSER", "the program o opens the dashboard with"},
	{
		"EXECTRIAGE_WEBHOOK_SECRET",
		"watch's webhook signing secret (whsec_ and base64, as Standard Webhooks), unless --webhook-secret-file names a file; never " +
			"printed or logged",
	},
	{"EXECTRIAGE_SLACK_WEBHOOK", "watch's Slack incoming webhook URL, when --slack is not given; a secret: never printed or logged"},
	{
		"PAGER, LESS",
		"list's pager on a terminal the list does not fit (default less, with LESS=FRX when LESS is unset; PAGER=cat or --no-pager " +
			"writes directly)",
	},
	{"XDG_STATE_HOME, XDG_CACHE_HOME, XDG_CONFIG_HOME", "where the journal, the log cache and the config live (see FILES)"},
}

// manFiles are the files exectriage reads and writes.
var manFiles = [][2]string{
	{"$XDG_CONFIG_HOME/exectriage/config.toml", "the config: profiles, verifiers, tool kinds, keys, theme"},
	{"$XDG_STATE_HOME/exectriage/journal.db", "the journal (default ~/.local/state/...): confirmations, retry attempts, verdicts"},
	{"$XDG_STATE_HOME/exectriage/demo-journal.db, demo-anchor", "the demo's own journal and the minute its world was made"},
	{
		"$XDG_CACHE_HOME/exectriage/",
		"the local cache of the API's logs and tool definitions, one file per API and key (exectriage cache info|clear)",
	},
	{"~/.composio/user_data.json", "the Composio CLI login, read when COMPOSIO_API_KEY is not set"},
}

// manSections are the ENVIRONMENT, FILES and EXIT STATUS sections in roff.
func manSections() string {
	var b strings.Builder
	list := func(title string, rows [][2]string) {
		b.WriteString(".SH " + title + "\n")
		for _, r := range rows {
			b.WriteString(".TP\n\\fB" + roff(r[0]) + "\\fP\n" + roff(r[1]) + "\n")
		}
		b.WriteString("\n")
	}
	list("ENVIRONMENT", manEnvironment)
	list("FILES", manFiles)
	var codes [][2]string
	for _, l := range strings.Split(exitCodes, "\n")[1:] {
		l = strings.TrimSpace(l)
		if code, text, ok := strings.Cut(l, "  "); ok && len(code) == 1 {
			codes = append(codes, [2]string{code, text})
		} else if len(codes) > 0 {
			codes[len(codes)-1][1] += " " + l
		}
	}
	list("EXIT STATUS", codes)
	return b.String()
}

// roff escapes text for a man page: backslashes, and a line that would start with a dot.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
