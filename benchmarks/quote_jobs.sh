#!/bin/bash
# The example jobs' quotes from two checkouts, alternating, RUNS runs each (wall, CPU, RSS, optimum).
#
#   benchmarks/quote_jobs.sh BEFORE_CHECKOUT AFTER_CHECKOUT DB_URL [JOB ...]
#
# Each checkout needs its .venv; JOB is a name in examples/ (default: the four of issue #26).
# The quote is stored in DB_URL: run it on a copy of the catalog. RUNS (default 3) per tree.
set -u
before=$1; after=$2; url=$3; shift 3
jobs=${*:-lora-7b-guangdong storage-upload-windows seeds-13b-full-8xa100 70b-full-multinode}
out=$(mktemp -d)
echo "# $url $(uptime)"
for job in $jobs; do
  for run in $(seq "${RUNS:-3}"); do
    for side in before after; do
      tree=$before; [ "$side" = after ] && tree=$after
      (cd "$tree" && /usr/bin/time -f "$side $job run$run %e s wall %U+%S cpu %M KiB" \
        .venv/bin/suanli --db "$url" --lang en quote "examples/$job.toml" --today 2026-11-29 \
        --json -o "$out/$side.html" >"$out/$side.json" 2>"$out/err") || tail -3 "$out/err"
      tail -1 "$out/err"
      python3 -c "import json,sys; print('   total', json.load(open(sys.argv[1]))['total_cost'])" \
        "$out/$side.json"
    done
  done
done
echo "# end $(uptime)"
rm -rf "$out"
