#!/usr/bin/env bash
# probe, check and prepare of each file in DIR (made by make-hostile.py), one at a time: exit status,
# seconds and peak RSS (MB), and the verdict's first words; a run past LIMIT seconds is killed.
# usage: measure-hostile.sh DIR [MEDIAPREP] [LIMIT]
set -uo pipefail
dir=$1; bin=${2:-.build/release/mediaprep}; limit=${3:-60}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
printf '%-28s %-8s %5s %7s %8s  %s\n' file command exit seconds "RSS MB" verdict
for f in "$dir"/*; do
  for cmd in probe check prepare; do
    rm -rf "$out/o"
    extra=(--json); [ "$cmd" = prepare ] && extra=(--out "$out/o" --json); [ "$cmd" = check ] && extra=(--format json)
    start=$(date +%s.%N)
    timeout -s KILL "$limit" /usr/bin/time -o "$out/time" -f "%M" "$bin" "$cmd" "$f" "${extra[@]}" > "$out/json" 2>/dev/null
    rc=$?
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    rss=$(grep -E '^[0-9]+$' "$out/time" 2>/dev/null | tail -1); rss=$(( ${rss:-0} / 1024 ))
    [ "$rc" = 137 ] && rss="killed"
    verdict=$(python3 - "$out/json" "$cmd" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("(no output)"); sys.exit()
def first(x):
    if isinstance(x, list):
        x = x[0] if x else {}
    e = x.get("error")
    if e:
        return "error " + e.get("code", "")
    if "verdict" in x:
        return "verdict " + str(x["verdict"]) + " " + str(x.get("code") or "")
    if x.get("route"):
        return "route " + str(x["route"]) + " " + str(x.get("kind"))
    return "kind " + str(x.get("kind"))
print(first(d))
PY
)
    printf '%-28s %-8s %5s %7.2f %8s  %s\n' "$(basename "$f")" "$cmd" "$rc" "$secs" "$rss" "$verdict"
  done
done
