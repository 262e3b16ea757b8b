#!/bin/sh
# Idle cost of one warm assistant CLI process (docs/tool-mode.md "Figures"): started with the flags and isolation
# tool mode uses, stdin held open with nothing written, as a warm or idle live process waits. Reports CPU (share of
# one core), context switches per second over all its threads (its wake-ups, roughly) and resident memory, over
# IDLE_SECONDS (default 60) after an 8 s settle. Linux only (/proc). Nothing is sent anywhere: the base URL points at
# a closed local port and no input is written.
#   REAL_ASSISTANT_CLI=<path to claude.exe> sh bench/cli-idle-cost.sh
set -eu
CLI=${REAL_ASSISTANT_CLI:?set REAL_ASSISTANT_CLI to the CLI binary}
SECONDS_IDLE=${IDLE_SECONDS:-60}
dir=$(mktemp -d)
trap 'kill "${PID:-}" 2>/dev/null || true; rm -rf "$dir"' EXIT
mkdir -p "$dir/home"
mkfifo "$dir/in"
HOME="$dir/home" CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 ANTHROPIC_BASE_URL=http://127.0.0.1:9 \
  "$CLI" -p --input-format stream-json --output-format stream-json --verbose --include-partial-messages \
  --model claude-sonnet-4-20250514 --setting-sources "" --strict-mcp-config --mcp-config '{"mcpServers":{}}' \
  --no-session-persistence --tools "" < "$dir/in" > /dev/null 2>&1 &
PID=$!
exec 3> "$dir/in"
sleep 8
snap() {
  t=$(awk '{print $14+$15}' "/proc/$PID/stat")
  c=0
  for f in /proc/"$PID"/task/*/status; do
    v=$(awk '/^voluntary_ctxt_switches/{a=$2} /^nonvoluntary_ctxt_switches/{b=$2} END{print a+b}' "$f")
    c=$((c + v))
  done
  echo "$t $c"
}
set -- $(snap); t0=$1; c0=$2
sleep "$SECONDS_IDLE"
set -- $(snap); t1=$1; c1=$2
hz=$(getconf CLK_TCK)
rss=$(awk '/^VmRSS/{print $2}' "/proc/$PID/status")
threads=$(ls "/proc/$PID/task" | wc -l)
echo "$("$CLI" --version) idle ${SECONDS_IDLE} s: $(awk -v d=$((t1 - t0)) -v hz="$hz" -v s="$SECONDS_IDLE" 'BEGIN{printf "%.2f", d/hz/s*100}') % of one core, $(awk -v d=$((c1 - c0)) -v s="$SECONDS_IDLE" 'BEGIN{printf "%.1f", d/s}') context switches/s ($threads threads), $((rss / 1024)) MB resident"
exec 3>&-
