#!/usr/bin/env bash
# Screenshots of the real binary for the README: the demo runs in a private tmux server at a
# fixed size, each scene is reached with real key presses, its coloured screen is captured
# (capture-pane -e) and rendered to SVG by charmbracelet/freeze (installed with go install
# when missing). Run by `make screenshots`; the SVGs are committed in docs/screenshots/.
set -euo pipefail

OUT=${OUT:-docs/screenshots}
EXT=${EXT:-svg} # png to look at them
W=${W:-120}
H=${H:-34}
GO=${GO:-go}
FREEZE=$(command -v freeze || true)
if [ -z "$FREEZE" ]; then
	"$GO" install github.com/charmbracelet/freeze@v0.2.2
	FREEZE=$("$GO" env GOPATH)/bin/freeze
fi
command -v tmux >/dev/null || { echo "screenshots: tmux is needed (apt-get install tmux)" >&2; exit 1; }

work=$(mktemp -d)
trap 'tmux -L "shots$$" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
"$GO" build -o "$work/exectriage" .
mkdir -p "$OUT" "$work/state" "$work/config"

tm() { tmux -L "shots$$" -f /dev/null "$@"; }

# wait_for TEXT: until the screen shows TEXT (15 s at most)
wait_for() {
	for _ in $(seq 1 150); do
		if tm capture-pane -p -t shot | grep -qF -- "$1"; then return 0; fi
		sleep 0.1
	done
	echo "screenshots: timed out waiting for: $1" >&2
	tm capture-pane -p -t shot >&2
	exit 1
}

# shot NAME: the screen as it is now, in colour, to $OUT/NAME.svg
shot() {
	sleep 0.4 # let the last frame settle
	# tmux ends a colour with SGR 39 (default foreground), which freeze does not know: it kept
	# the colour before (a border's, a label's) for the text after it. Say the default instead.
	tm capture-pane -e -p -t shot | sed 's/\x1b\[39m/\x1b[38;5;252m/g' >"$work/$1.ansi"
	"$FREEZE" "$work/$1.ansi" --language ansi --font.family "DejaVu Sans Mono, Menlo, monospace" \
		--window --padding 20 --margin 0 --wrap 0 -o "$OUT/$1.$EXT" >/dev/null
	echo "screenshots: $OUT/$1.$EXT"
}

start() {
	tm kill-session -t shot 2>/dev/null || true
	tm new-session -d -s shot -x "$W" -y "$H" \
		"env -u COMPOSIO_API_KEY -u NO_COLOR HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config TERM=xterm-256color $work/exectriage --demo; sleep 30"
	wait_for "refreshed"
}

# 1. the list, flagged writes only, a flagged row selected
start
tm send-keys -t shot a
wait_for "AMBIGUOUS"
shot list-flagged

# 2. duplicate groups with their cause
tm send-keys -t shot a d
wait_for "Duplicate groups"
shot duplicate-groups

# 3. detail and provider side by side: verify the selected flagged write, then open it
tm send-keys -t shot d a
wait_for "AMBIGUOUS"
tm send-keys -t shot v
wait_for "VERIFIED"
tm send-keys -t shot Enter
wait_for "Provider state"
shot detail-provider

# 4. the guarded retry's confirmation on a flagged Gmail send the provider does not show: the
# filter keeps the ambiguous sends, v checks each until one is not found, r opens the dialog,
# and the confirmation is typed as a person would (the screenshot shows it filled in)
tm send-keys -t shot Escape
sleep 0.3
tm send-keys -t shot / "flagged:yes outcome:ambiguous tool:GMAIL_SEND_EMAIL" Enter
wait_for "outcome:ambiguous"
found=""
for _ in $(seq 1 12); do
	tm send-keys -t shot v
	for _ in $(seq 1 50); do
		if tm capture-pane -p -t shot | grep -q "provider \(found\|not_found\|unknown\)"; then break; fi
		sleep 0.1
	done
	if tm capture-pane -p -t shot | grep -q "provider not_found"; then found=1; break; fi
	tm send-keys -t shot j
	sleep 0.3
done
[ -n "$found" ] || { echo "screenshots: no flagged send the provider does not show" >&2; exit 1; }
tm send-keys -t shot r
wait_for "[ Retry once ]"
sleep 1 # past the key delay
tm send-keys -t shot Tab Tab
tm send-keys -t shot -l failed
tm send-keys -t shot Enter
tm send-keys -t shot -l "the customer never got the email"
tm send-keys -t shot Enter
wait_for "the customer never got"
shot retry-dialog
tm send-keys -t shot Escape
sleep 0.3
tm send-keys -t shot q
