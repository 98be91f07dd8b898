"""The message catalogue's help texts: every command's and option's ``--help`` in Chinese.

Keyed by the English text as written in the command's code (gettext's msgid idea, without the
toolchain): the code stays readable in English and ``--lang en`` shows it as it is. A test walks
every command and option and fails when one has no Chinese text here, so a new option cannot
ship with English help under the default ``--lang zh``. Flag names, file names and values stay
as typed (``--gpu``, ``JOB.toml``, ``hourly``); ``Example:`` lines are kept verbatim.
"""

from __future__ import annotations

import re

# typer's own words around the help texts (panel titles, the default/env-var notes)
HELP_CHROME_ZH: dict[str, str] = {
    "ARGUMENTS_PANEL_TITLE": "参数",
    "OPTIONS_PANEL_TITLE": "选项",
    "COMMANDS_PANEL_TITLE": "命令",
    "DEFAULT_STRING": "[默认：{}]",
    "ENVVAR_STRING": "[环境变量：{}]",
    "REQUIRED_LONG_STRING": "[必填]",
    "DEPRECATED_STRING": "（已弃用）",
}
HELP_OPTION_ZH = "显示本帮助并退出。"
# the help renderer's own words (comparator/cli/helptext.py)
HELP_WORDS_ZH: dict[str, str] = {
    "usage": "用法:",
    "OPTIONS": "[选项]",
    "COMMAND": "命令 [参数]...",
    "example": "示例：",
}

HELP_ZH: dict[str, str] = {
    # help
    "The command (and subcommand) to explain.": "要说明的命令（及子命令）。",
    "Show the help of suanli or of one command, as COMMAND --help does.": (
        "显示 suanli 或某个命令的帮助，与 COMMAND --help 相同。"
    ),
    # suanli
    "算力 Suanli — estimate, compare, plan and verify rented GPU compute.": (
        "算力 Suanli — 估算、比较、规划并验收租用的 GPU 算力。"
    ),
    "SQLAlchemy URL of the catalog database.": "目录数据库的 SQLAlchemy URL。",
    "Language of human output: zh or en.": "输出语言：zh（中文）或 en（英文）。",
    "Show tracebacks on errors.": "出错时显示完整调用栈。",
    "Print the version and exit.": "显示版本号并退出。",
    "Print one JSON document on stdout.": "在标准输出打印一个 JSON 文档。",
    # init / import / providers / offers
    "Create or upgrade the catalog schema (idempotent) and load the demo catalog.": (
        "创建或升级目录数据库表结构（可重复执行），并载入演示目录。"
    ),
    "Load the bundled demo catalog (default: only into a new, empty DB).": (
        "载入自带的演示目录（默认只载入新建的空数据库）。"
    ),
    "Import provider profiles and price sheets as new snapshots.": (
        "导入服务商资料和价格表，生成新的快照。"
    ),
    "A sheet with any bad row is rejected whole; the message lists every bad row.": (
        "价格表只要有一行错误就整表拒收，并列出每一行错误。"
    ),
    "Re-importing identical content creates no new snapshot. A sheet is the provider's whole": (
        "重复导入相同内容不会生成新快照。价格表即服务商的完整报价："
    ),
    "price list: one that would remove offers from its current snapshot needs --replace.": (
        "会删去当前快照中报价的表需加 --replace。"
    ),
    "Price sheets (.csv/.xlsx/.json) and profiles (.toml).": (
        "价格表（.csv/.xlsx/.json）和服务商资料（.toml）。"
    ),
    "A provider profile (TOML); may repeat.": "服务商资料（TOML），可重复给出。",
    "Import a sheet even if it removes offers from the provider's current snapshot.": (
        "即使会删去该服务商当前快照中的报价，也照样导入。"
    ),
    "Providers with their credentials summary and data centres.": ("服务商列表：资质摘要与机房。"),
    "Offers of the current snapshots, cheapest per card-hour first (in the quote currency).": (
        "当前快照中的报价，按每卡时价格（报价币种）从低到高排列。"
    ),
    "GPU model, any alias (A100-80G, 4090, 910B…).": "卡型，任意别名（A100-80G、4090、910B…）。",
    "Provider id.": "服务商编号。",
    "Province of the data centre (广东, 粤…).": "机房所在省份（广东、粤…）。",
    "hourly, spot, daily, weekly, monthly, yearly (or 按量, 包月…).": (
        "计费方式：按量、竞价、包日、包周、包月、包年（或 hourly、monthly…）。"
    ),
    "At most N offers (table default 30).": "最多显示 N 条报价（表格默认 30 条）。",
    "Only offers eligible for this job file.": "只列出符合该任务文件要求的报价。",
    "Only offers that pass the default compliance checks.": "只列出通过默认合规检查的报价。",
    "Host file (one machine per line): run an all-reduce bandwidth test across them.": (
        "主机文件（每行一台机器）：在这些机器间运行全归约带宽测试。"
    ),
    "auto (NCCL or gloo with PyTorch, else the built-in TCP ring), ring, gloo or nccl.": (
        "`auto`（有 PyTorch 时用 NCCL 或 `gloo`，否则用内置 TCP 环）、`ring`、`gloo` 或 `nccl`。"
    ),
    "MiB all-reduced per iteration (default 64).": "每轮全归约的数据量，MiB（默认 64）。",
    # check
    "Compliance report per provider (and per data centre): licences, filings, job rules.": (
        "按服务商（及机房）给出合规报告：许可证、备案、任务规则。"
    ),
    # schema
    "Print the JSON Schema of a job, profile or sources file, for TOML editors (Taplo).": (
        "打印任务文件、档案或来源文件的 JSON 模式定义，供 TOML 编辑器补全和检查键名。"
    ),
    "Which file: job, profile or sources.": "哪种文件：`job`（任务）、`profile`（档案）或 `sources`（来源）。",
    "Provider ids (default: all).": "服务商编号（默认全部）。",
    "Job file whose requirements apply.": "按该任务文件的要求检查。",
    "Judge as of this date (YYYY-MM-DD); default: today.": (
        "以该日期（YYYY-MM-DD）为准判断；默认今天。"
    ),
    "Exit 3 when any provider fails.": "任一服务商不通过时以退出码 3 结束。",
    # estimate
    "Resource estimate of a training job: memory per card, cards, ZeRO stage, hours.": (
        "估算训练任务所需资源：每卡显存、卡数、ZeRO 阶段、时长。"
    ),
    "Built-in name (Llama-2-7b, Qwen2.5-7B …), a Hugging Face config.json path, or a size "
    "such as 7B / 350M.": (
        "内置模型名（Llama-2-7b、Qwen2.5-7B …）、Hugging Face config.json 路径，"
        "或规模如 7B / 350M。"
    ),
    "full | lora | qlora.": "微调方法：full（全参）| lora | qlora。",
    "bf16 | fp16 | fp32 (full + bf16/fp16 = mixed precision, fp32 master).": (
        "精度：bf16 | fp16 | fp32（全参 + bf16/fp16 即混合精度，保留 fp32 主权重）。"
    ),
    "Full FT with bf16 weights, grads and optimizer states (no fp32 master).": (
        "全参微调时权重、梯度和优化器状态都用 bf16（不保留 fp32 主权重）。"
    ),
    "adamw | adamw-8bit | sgd.": "优化器：adamw | adamw-8bit | sgd。",
    "LoRA rank, on every linear layer.": "LoRA 秩，作用于每个线性层。",
    "Sequence length (tokens).": "序列长度（token 数）。",
    "Link between the cards as an offer states it: NVLink, PCIe (default: the GPU's).": (
        "报价所写的卡间互联：NVLink、PCIe（默认按 GPU 型号）。"
    ),
    "Node network as an offer states it: 'IB 200G', '4×200G IB', 'RoCE 100Gbps' "
    "(default: 8×200G InfiniBand, assumed).": (
        "报价所写的节点网络：'IB 200G'、'4×200G IB'、'RoCE 100Gbps'（默认假定 8×200G InfiniBand）。"
    ),
    "Micro-batch per card (default: the smallest that runs compute-bound and fits).": (
        "每卡 micro-batch 大小（默认取能跑满算力且放得下的最小值）。"
    ),
    "Sequences per optimizer step, kept by gradient accumulation (default: not fixed).": (
        "每次优化器更新的序列数，由梯度累积保持（默认不固定）。"
    ),
    "Full activation recomputation.": "梯度检查点（激活完全重计算）。",
    "FlashAttention (no s² attention scores kept).": "FlashAttention（不保存 s² 注意力分数）。",
    "ZeRO stage 0-3 (default: the smallest that fits).": "ZeRO 阶段 0-3（默认取放得下的最小阶段）。",
    "Training tokens per epoch: 2T, 300M, 1.5e9 …": "每轮训练 token 数：2T、300M、1.5e9 …",
    "Samples per epoch (with --avg-tokens), instead of --tokens.": (
        "每轮样本数（配合 --avg-tokens），可代替 --tokens。"
    ),
    "Average tokens per sample.": "每个样本的平均 token 数。",
    "Epochs.": "训练轮数。",
    "Any GPU alias: A100-80G, 4090, H800 …": "卡型，任意别名：A100-80G、4090、H800 …",
    "Card count (default: the fewest that fit).": "卡数（默认取放得下的最少卡数）。",
    "Model FLOPs utilisation (default: fitted to published runs by GPU, size, method).": (
        "MFU 模型算力利用率（默认取按卡型、模型规模和方法拟合公开训练记录的值）。"
    ),
    "Full activation recomputation on/off (default: only when needed to fit).": (
        "完整激活重计算开/关（默认仅在放不下时开启）。"
    ),
    "none | selective | op | full (default: the cheapest the stack offers that fits).": (
        "none（不重算）| selective（选择性）| op（算子级选择性）| full（完整）"
        "（默认取该框架提供且放得下的最省时方案）。"
    ),
    "Training stack: megatron (NeMo), torchtitan (FSDP2), deepspeed, hf (HF Trainer / "
    "LLaMA-Factory / Axolotl), unsloth, torchtune, other (default: hf, range over all).": (
        "训练框架：megatron（NeMo）、torchtitan（FSDP2）、deepspeed、hf（HF Trainer / "
        "LLaMA-Factory / Axolotl）、unsloth、torchtune、other（默认 hf，区间覆盖所有框架）。"
    ),
    "Chunked cross-entropy, 1/8 of the logits at once (default: only when needed).": (
        "分块交叉熵，每次计算 1/8 的 logits（默认仅在需要时）。"
    ),
    "Optimizer states in CPU memory, ≈1.3× time (default: only if nothing else fits).": (
        "优化器状态放在 CPU 内存，时长约 ×1.3（默认仅在别无他法时）。"
    ),
    "Memory kept free, 0-0.95 (default 0.10 or SUANLI_HEADROOM).": (
        "显存预留比例 0-0.95（默认 0.10 或 SUANLI_HEADROOM）。"
    ),
    "Multiply hours by this buffer (the seeds use 1.5).": "时长乘以该安全系数（经验值 1.5）。",
    "List built-in models.": "列出内置模型。",
    # plan / quote
    "Plan the cheapest compliant schedule: provider, data centre, GPU, cards, hours, billing.": (
        "规划最便宜的合规方案：服务商、机房、卡型、卡数、时段、计费方式。"
    ),
    "Job file(s) (TOML); several share stock.": "任务文件（TOML）；多个任务共享库存。",
    "Write a calibration file of a trial run on this machine.": "写出本机试跑的校准文件。",
    "Training tokens/s per card the trial ran.": "试跑实测的每卡每秒训练词元数。",
    "Training tokens/s per card measured on this GPU and card count: the estimate moves "
    "to it.": "在该卡型与卡数上实测的每卡每秒训练词元数：估算按实测校准。",
    "A measured trial run ([calibration] file, as verify --measure writes): the estimate "
    "moves to it.": "实测试跑结果（[calibration] 文件，可由 `suanli verify --measure` 写出）：估算按实测校准。",
    "cost (default) or time.": "优化目标：cost（费用，默认）或 time（完成时间）。",
    "Alternatives shown (default 5).": "显示的备选方案数（默认 5）。",
    "Judge licence validity and price age as of this date (YYYY-MM-DD).": (
        "以该日期（YYYY-MM-DD）判断许可证有效期和价格时效。"
    ),
    "Seconds HiGHS may spend on several jobs sharing stock.": (
        "多个任务共享库存时 HiGHS 求解的时间上限（秒）。"
    ),
    "Plan a job, save it as a numbered quote and render the comparison report.": (
        "规划任务，保存为带编号的报价单，并生成对比报告。"
    ),
    "Job file (TOML); not needed with --show.": "任务文件（TOML）；用 --show 时不需要。",
    "Write the HTML report.": "写出 HTML 报告。",
    "Write the PDF report (needs Pango).": "写出 PDF 报告（需要 Pango）。",
    "Re-render the stored quote NUMBER (e.g. Q-2026-000123).": (
        "重新生成已保存的报价单 NUMBER（如 Q-2026-000123）。"
    ),
    "Keep at most N alternatives (default 5).": "最多保留 N 个备选方案（默认 5）。",
    "Judge licences and price ages as of this date (YYYY-MM-DD).": (
        "以该日期（YYYY-MM-DD）判断许可证和价格时效。"
    ),
    # report market
    "Reports over the catalog: the weekly market report.": "基于价格目录的报告：每周市场报告。",
    "The weekly market report: price index per GPU and billing mode, and what changed.": (
        "每周市场报告：按卡型与计费方式的价格指数，以及本周的变化。"
    ),
    "Judge compliance for this job file (default: no requirements).": (
        "按该任务文件判断合规（默认：无任务要求）。"
    ),
    "Weeks on record (2–104).": "统计的周数（2–104）。",
    # refresh / history / worker
    "Run the provider adapters once (the weekly job's body) and report price changes.": (
        "运行一次各服务商适配器（每周任务的主体），并报告价格变化。"
    ),
    "Sources run concurrently, each within its own deadline; a failing source keeps its last": (
        "各来源并发运行，各有时限；失败的来源保留上一次"
    ),
    "good snapshot. Exits 1 when every source that ran failed.": (
        "成功的快照。所有运行的来源都失败时退出码为 1。"
    ),
    "Sources file (TOML); env SUANLI_SOURCES. See examples/sources.toml.": (
        "来源文件（TOML）；环境变量 SUANLI_SOURCES。见 examples/sources.toml。"
    ),
    "Only this provider; may repeat.": "只刷新该服务商，可重复给出。",
    "Only sources without a good run this period (what the worker does).": (
        "只运行本周期内还没有成功运行的来源（worker 的做法）。"
    ),
    "Each offer's price over the snapshots: did it get cheaper?": (
        "每条报价在各快照中的价格：降价了吗？"
    ),
    "GPU model, any alias (H100, 4090…).": "卡型，任意别名（H100、4090…）。",
    "At most N offers (table: 30).": "最多显示 N 条（表格默认 30 条）。",
    "Run the refresh on the sources file's cron until SIGTERM (default Monday 03:00).": (
        "按来源文件的 cron 定时刷新，直到收到 SIGTERM（默认每周一 03:00）。"
    ),
    "At start it catches up every source without a good run in the current period. A lease": (
        "启动时补跑本周期内还没有成功运行的来源。租约"
    ),
    "keeps a second worker from running the same refresh. Logs go to stderr.": (
        "保证第二个 worker 不会重复刷新。日志写到标准错误。"
    ),
    # verify
    "Acceptance check of a rented machine: model, memory, processes, ECC, PCIe and NVLink.": (
        "租用机器的验收检查：型号、显存、进程、ECC、PCIe 和 NVLink。"
    ),
    "Saved `nvidia-smi -q -x` output (default: run it here).": (
        "保存的 `nvidia-smi -q -x` 输出（默认在本机运行）。"
    ),
    "Saved `nvidia-smi topo -m` output (NVLink vs PCIe paths).": (
        "保存的 `nvidia-smi topo -m` 输出（NVLink 与 PCIe 路径）。"
    ),
    "Offer id (see `suanli offers`) the machine must match.": (
        "机器应当符合的报价编号（见 `suanli offers`）。"
    ),
    "Cards this machine should have (default: from the offer).": "机器应有的卡数（默认取自报价）。",
    "Measure bf16 matmul, memory and NCCL bandwidth with PyTorch (default: only when "
    "nvidia-smi runs here).": (
        "用 PyTorch 实测 bf16 矩阵乘、显存和 NCCL 带宽（默认仅在本机能运行 nvidia-smi 时）。"
    ),
    "Attach the verdict to this quote number in the catalog.": "把验收结论记入目录中该报价单。",
    "Exit 3 when the verdict is fail.": "结论为不通过时以退出码 3 结束。",
    'Decimal mark of the sheets\' numbers: "." or "," (1,5 = 1.5).': (
        '价格表数字的小数点："." 或 ","（1,5 即 1.5）。'
    ),
}


_HAN = "\u3400-\u9fff"
# a space between Chinese and a Latin token (and back), so wrapping never splits the token
_CJK_THEN_LATIN = re.compile(rf"(?<=[{_HAN}，、；：])(?=[A-Za-z0-9`\-])")
_LATIN_THEN_CJK = re.compile(rf"(?<=[A-Za-z0-9`])(?=[{_HAN}])")


def spaced(text: str) -> str:
    """``卡型（A100-80G、4090）`` → ``卡型（ A100-80G、 4090）``: wrap points around Latin tokens."""
    return _LATIN_THEN_CJK.sub(" ", _CJK_THEN_LATIN.sub(" ", text))


def help_zh(text: str) -> str | None:
    """The Chinese help of an English help text: whole, else line by line (docstrings).

    Lines starting with ``Example:`` are kept as they are; ``None`` when a line is missing.
    """
    whole = HELP_ZH.get(text.strip())
    if whole is not None:
        return whole
    lines: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("Example:"):
            lines.append(stripped.replace("Example:", "示例：", 1))
            continue
        found = HELP_ZH.get(stripped)
        if found is None:
            return None
        lines.append(found)
    return "\n".join(lines)
