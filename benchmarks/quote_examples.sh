#!/bin/bash
# quote_examples.sh TREE LABEL DB SHAPE: the four example quotes on one database and catalog
# shape, twice each (the second counts), with TREE's .venv; SQLITE_DIR holds bench.db and
# other.db (copies of the 1M-offer catalogs: a quote stores itself), PG_PREFIX names the
# PostgreSQL copies PREFIX_bench and PREFIX_other.
cd $1; L=$2; db=$3; shape=$4
PG=postgresql+psycopg://postgres@127.0.0.1:54329
if [ $db = sqlite ]; then URL=sqlite:///${SQLITE_DIR:?}/$shape.db; else URL=$PG/${PG_PREFIX:?}_$shape; fi
echo "# $L $db $shape start load $(cut -d' ' -f1 /proc/loadavg)"
for j in lora-7b-guangdong storage-upload-windows seeds-13b-full-8xa100 70b-full-multinode; do
  for run in 1 2; do
    /usr/bin/time -f "$L $db $shape $j run$run %e s wall %U+%S cpu %M KiB" .venv/bin/suanli --db $URL --lang en quote examples/$j.toml --today 2026-11-29 --json -o /tmp/quote-examples-$L.html > /tmp/quote-examples-$L-$db-$shape-$j.json 2>/tmp/quote-examples-$L.err || { echo "FAILED $db $shape $j"; tail -3 /tmp/quote-examples-$L.err; }
    [ $run = 2 ] && tail -1 /tmp/quote-examples-$L.err
  done
  python3 -c "import json; d=json.load(open('/tmp/quote-examples-$L-$db-$shape-$j.json')); print('   total', d['total_cost'])"
done
echo "# $L $db $shape end load $(cut -d' ' -f1 /proc/loadavg)"
