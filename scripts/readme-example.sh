#!/usr/bin/env bash
# Writes the README's example output from a real run: the answer that
# `dlcbench report DIR` prints (what the run printed after its progress
# lines), with the command that made the run and the machine it ran on.
#
#   scripts/readme-example.sh results/<run-id>
#
# It replaces what lies between the README's "example-output" markers;
# tests/check_docs.py checks the block's format (every line within 100
# columns, the answer's table and its details line), so a stale or
# hand-edited example shows.
set -euo pipefail
cd "$(dirname "$0")/.."
run_dir=${1:?usage: scripts/readme-example.sh results/<run-id>}
[[ -f "$run_dir/manifest.json" ]] || { echo "error: $run_dir/manifest.json is missing: give a run folder" >&2; exit 2; }
answer=$(build/dlcbench report "$run_dir")
python3 - "$run_dir" "$answer" <<'PY'
import json, pathlib, re, shlex, sys
run_dir, answer = sys.argv[1], sys.argv[2]
manifest = json.loads((pathlib.Path(run_dir) / "manifest.json").read_text())
words = manifest.get("command_line", [])
if words:
    words = ["dlcbench"] + words[1:]  # the program as a user types it, not the build's path
cpu = manifest.get("orchestrator", {}).get("cpu", {})
machine = f'{cpu.get("model", "?")}, {cpu.get("online", "?")} CPUs'
day = manifest.get("started_at", "?")[:10]
answer = answer.replace(run_dir.rstrip("/"), "results/" + manifest.get("run_id", "RUN"))
block = (f"<!-- example-output:begin -->\nThe answer printed after the progress lines by `{shlex.join(words)}` "
         f"({machine}, {day}; written by `scripts/readme-example.sh`):\n\n```\n{answer.rstrip()}\n```\n"
         "<!-- example-output:end -->")
readme = pathlib.Path("README.md")
text = readme.read_text()
new, count = re.subn(r"<!-- example-output:begin -->.*?<!-- example-output:end -->", lambda _: block, text,
                     flags=re.S)
if count != 1:
    sys.exit("error: README.md needs exactly one pair of example-output markers")
readme.write_text(new)
print(f"README.md: example output from {run_dir}")
PY
