#!/usr/bin/env bash
# Check a rented GPU machine and measure real training steps on it, in one run.
#
#   benchmarks/gpu_machine.sh OUTDIR
#
# Run from the repository root on the machine, with suanli importable (installed, or on
# PYTHONPATH) and PyTorch + transformers + peft for the training steps. It writes to OUTDIR:
#   gpu.xml, gpu.topo.txt   `nvidia-smi -q -x` and `nvidia-smi topo -m`, taken before any load
#   verify.json, verify.txt `suanli verify --measure` (JSON, and the Chinese table)
#   train.jsonl             one benchmarks/train_step.py document per job (JOBS below)
#   calibration.toml        `suanli verify --calibration-out` from the first job's tokens/s
# Each job is stopped after JOB_TIMEOUT_S seconds; one that fails (out of memory, say) is
# reported and the others still run.
set -uo pipefail

out=${1:?usage: benchmarks/gpu_machine.sh OUTDIR}
mkdir -p "$out"
python=${PYTHON:-python3}
suanli() { "$python" -m comparator "$@"; }
JOB_TIMEOUT_S=${JOB_TIMEOUT_S:-150}
CONFIGS=tests/data/hf_configs
JOBS=(
  "--config $CONFIGS/tinyllama-1.1b.json --method full --micro-batch 8"
  "--config $CONFIGS/qwen2.5-7b.json --method lora --micro-batch 4"
  "--config $CONFIGS/llama-2-7b.json --method full --micro-batch 2 --grad-ckpt"
  "--config $CONFIGS/qwen2.5-7b.json --method lora --micro-batch 8 --grad-ckpt"
  "--config $CONFIGS/phi-2.json --method full --micro-batch 4"
  "--config $CONFIGS/llama-2-7b.json --method lora --micro-batch 2 --seq-len 4096"
)

nvidia-smi -q -x > "$out/gpu.xml"
nvidia-smi topo -m > "$out/gpu.topo.txt"
echo "== suanli verify --measure"
suanli --lang en verify --measure --json > "$out/verify.json"
echo "verify --json exit $?"
suanli verify --nvidia-smi-xml "$out/gpu.xml" --topo "$out/gpu.topo.txt" --measure \
  | tee "$out/verify.txt"

: > "$out/train.jsonl"
for job in "${JOBS[@]}"; do
  echo "== train_step.py $job"
  # shellcheck disable=SC2086 # the job's flags are split on purpose
  if timeout "$JOB_TIMEOUT_S" "$python" benchmarks/train_step.py $job --json > "$out/job.json"; then
    "$python" -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' \
      "$out/job.json" >> "$out/train.jsonl"
  else
    echo "job failed (exit $?)"
  fi
done
rm -f "$out/job.json"

first_tokens_per_s=$("$python" -c 'import json,sys
for line in open(sys.argv[1]):
    print(round(json.loads(line)["tokens_per_s_per_card"], 1)); break' "$out/train.jsonl")
if [ -n "$first_tokens_per_s" ]; then
  suanli verify --nvidia-smi-xml "$out/gpu.xml" --no-measure \
    --calibration-out "$out/calibration.toml" --trial-tokens-per-s "$first_tokens_per_s" > /dev/null
  cat "$out/calibration.toml"
fi
