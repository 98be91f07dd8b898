#!/bin/bash
# Growth of the README's LoRA quote from 100k to 1M offers (issue #26, item 2): three quotes on
# a 100k-offer catalog, then three on a 1M one, by the code of TREE (`python -m comparator` run
# from it, its bytecode compiled first).
#   benchmarks/growth.sh TREE LABEL sqlite:////PATH/100k-copy.db sqlite:////PATH/1m-copy.db
# Run it on copies (a quote stores itself), alone on the machine or under a lock shared with
# other measurements:  flock /tmp/measure.lock benchmarks/growth.sh ../main main URL100K URL1M
set -u
TREE=$1 LABEL=$2 SMALL=$3 LARGE=$4
PY=${PYTHON:-$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python}
cd "$TREE" || exit 1
PYTHONDONTWRITEBYTECODE= "$PY" -m compileall -q comparator providers
for size in 100k 1m; do
  if [ $size = 100k ]; then URL=$SMALL; else URL=$LARGE; fi
  for run in 1 2 3; do
    /usr/bin/time -f "$LABEL growth $size run$run %e s wall %U+%S cpu %M KiB" "$PY" -m comparator \
      --db "$URL" --lang en quote examples/lora-7b-guangdong.toml --today 2026-11-29 --json \
      -o /tmp/growth-$LABEL.html > /tmp/growth-$LABEL-$size.json 2> /tmp/growth-$LABEL.err
    tail -1 /tmp/growth-$LABEL.err
  done
  python3 -c "import json; d=json.load(open('/tmp/growth-$LABEL-$size.json')); print('   total', d['total_cost'], 'solved', d['plan']['stats'].get('solved'))"
done
uptime
