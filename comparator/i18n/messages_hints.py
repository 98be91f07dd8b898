"""Chinese of the specific hints: what to write instead of a refused setting, value or file
content, and which command lists the valid values (``hint:`` lines)."""

from __future__ import annotations

HINTS_ZH: dict[str, str] = {
    # estimate settings (flags and [training] keys): comparator/estimate/request_hints.py
    "full trains every weight, lora and qlora train adapters; a stack that cannot train "
    "the method needs another stack (hf trains all three)": (
        "full 训练全部权重，lora 与 qlora 只训练适配器；训练框架不支持该方法时请换一个（hf 三种都支持）"
    ),
    "write bf16 (most cards), fp16, fp32, or fp8 on Ada, Hopper or Blackwell cards": (
        "请写 bf16（多数卡）、fp16、fp32，或在 Ada、Hopper、Blackwell 卡上写 fp8"
    ),
    "write adamw, adamw-8bit or sgd": "请写 adamw、adamw-8bit 或 sgd",
    "write a whole number below the hidden size, such as 8, 16 or 64": (
        "请写小于隐藏维的整数，如 8、16 或 64"
    ),
    "write the tokens per sequence, a whole number such as 2048 or 4096": (
        "请写每条序列的 token 数，整数，如 2048 或 4096"
    ),
    "write sequences per card per step, such as 1 or 4; or leave it out": (
        "请写每卡每步的序列数，如 1 或 4；或不写"
    ),
    "write sequences per optimizer step, such as 256; or leave it out": (
        "请写每个优化器步的序列数，如 256；或不写"
    ),
    "write none, selective, op or full (true is full); `suanli estimate --help` says which "
    "stack offers which": (
        "请写 none、selective、op 或 full（true 即 full）；各训练框架支持哪些见 `suanli estimate --help`"
    ),
    "write true or false, or leave it out (chosen when the logits need it)": (
        "请写 true 或 false，或不写（logits 放不下时自动选用）"
    ),
    "write true or false, or leave it out (offloaded only when nothing else fits)": (
        "请写 true 或 false，或不写（别的办法都放不下时才卸载）"
    ),
    "write 0, 1, 2 or 3, or leave it out: the lowest stage that fits is chosen": (
        "请写 0、1、2 或 3，或不写：自动选放得下的最低阶段"
    ),
    "give at most 16,384 cards, or leave the count out: the estimate finds the fewest "
    "cards that fit": "卡数至多 16,384，或不写卡数：估算会找出放得下的最少卡数",
    "write a fraction of the peak such as 0.4, or leave it out to use the fit": (
        "请写占峰值的比例，如 0.4；或不写，使用拟合值"
    ),
    "write a fraction from 0 to 0.95, such as 0.1 for 10 % kept free": (
        "请写 0 到 0.95 之间的比例，如 0.1 表示留 10% 余量"
    ),
    "write a factor from 0.01 to 100, such as 1.5": "请写 0.01 到 100 之间的系数，如 1.5",
    "write a positive number of passes over the data, such as 3 or 0.5": (
        "请写遍历数据的次数，正数，如 3 或 0.5"
    ),
    "write a count such as 300M, 2B or 1.5e9 (per epoch)": "请写数量，如 300M、2B 或 1.5e9（每轮）",
    "write samples with avg_tokens (--samples 100k --avg-tokens 800), or tokens": (
        "samples 须与 avg_tokens 一起写（--samples 100k --avg-tokens 800），或改写 tokens"
    ),
    "write the offer's string, such as NVLink or PCIe, or leave it out": (
        "请照报价写，如 NVLink 或 PCIe；或不写"
    ),
    "write the offer's string, such as IB 200G or RoCE 100Gbps, or leave it out": (
        "请照报价写，如 IB 200G 或 RoCE 100Gbps；或不写"
    ),
    "write megatron, torchtitan, deepspeed, hf, unsloth, torchtune or other "
    "(aliases: nemo, fsdp2, llama-factory, axolotl)": (
        "请写 megatron、torchtitan、deepspeed、hf、unsloth、torchtune 或 other"
        "（别名：nemo、fsdp2、llama-factory、axolotl）"
    ),
    "pure bf16 needs precision bf16 or fp16; or drop pure_bf16": (
        "纯 bf16 需要 precision 为 bf16 或 fp16；或去掉 pure_bf16"
    ),
    "{value} cards: more than any placement offers; at most {limit:,} (16 "
    "machines of at most 1,024 cards)": (
        "{value} 张卡：超过任何部署能提供的卡数；至多 {limit:,}（16 台、每台至多 1,024 卡）"
    ),
    # content errors of files and flags: each says what to write instead
    "write the day as YYYY-MM-DD, such as 2026-12-01": "日期写作 YYYY-MM-DD，如 2026-12-01",
    "give a sheet and its provider's profile: suanli import acme.csv --profile acme.toml": (
        "请给出价格表及其服务商档案：suanli import acme.csv --profile acme.toml"
    ),
    'write "." (1.5) or "," (1,5) for the decimal mark': '小数点请写 "."（1.5）或 ","（1,5）',
    "write hourly, spot, daily, weekly, monthly or yearly; `suanli offers` shows each "
    "offer's billing mode": (
        "请写 hourly、spot、daily、weekly、monthly 或 yearly；`suanli offers` 显示每条报价的计费方式"
    ),
    "write a mainland province by its name or short name, or leave --province out; `suanli "
    "offers` shows each offer's province": (
        "请写中国大陆省份的全称或简称，或去掉 --province；`suanli offers` 显示每条报价所在省份"
    ),
    "plan the jobs one at a time with --calibration, or put a [calibration] table in each "
    "job file": ("带 --calibration 时请逐个规划作业，或在每个作业文件中写 [calibration] 表"),
    "suanli quote examples/lora-7b-guangdong.toml makes a quote; suanli quote --show "
    "Q-2026-000123 shows a stored one": (
        "suanli quote examples/lora-7b-guangdong.toml 生成报价；suanli quote --show Q-2026-000123 查看已存的报价"
    ),
    "write the [calibration] table by hand for the GPU the trial ran on (README, Calibrate "
    "from your own trial run)": (
        "请按试跑所用 GPU 手写 [calibration] 表（README 的 `Calibrate from your own trial run` 一节）"
    ),
    "add --trial-tokens-per-s N, the training tokens/s per card your trial measured": (
        "请加上 --trial-tokens-per-s N，即试跑实测的单卡每秒训练 token 数"
    ),
    "give --calibration-out a path in a folder you can write to": "请给 --calibration-out 一个可写文件夹中的路径",
    "on the rented machine run `nvidia-smi -q -x > smi.xml` and give --nvidia-smi-xml smi.xml": (
        "请在租用的机器上运行 `nvidia-smi -q -x > smi.xml`，再用 --nvidia-smi-xml smi.xml 传入"
    ),
    "write auto (the default), ring, gloo or nccl": "请写 `auto`（默认）、`ring`、`gloo` 或 `nccl`",
    "`suanli schema job` prints the kind of value each [training] key takes": (
        "`suanli schema job` 列出 [training] 各键接受的值的类型"
    ),
    "pick a GPU with a known dense BF16 throughput for the estimate, such as A100-80G, "
    "H800 or 4090": ("估算请选有已知 BF16 稠密算力的 GPU，如 A100-80G、H800 或 4090"),
    "use precision bf16 on this card, or a GPU with FP8 tensor cores (Ada, Hopper or Blackwell)": (
        "此卡请用 bf16 精度，或换有 FP8 张量核心的 GPU（Ada、Hopper 或 Blackwell）"
    ),
    "give the number a quote printed when it was made, such as Q-2026-000123": (
        "请给出生成报价时打印的编号，如 Q-2026-000123"
    ),
    "give the path of an existing price sheet (.csv, .xlsx, .json) or profile (.toml)": (
        "请给出已存在的价格表（.csv、.xlsx、.json）或服务商档案（.toml）的路径"
    ),
    "name a sheet .csv, .xlsx or .json and a provider profile .toml": (
        "价格表请命名为 .csv、.xlsx 或 .json，服务商档案为 .toml"
    ),
    "fix the value named and import again (README, section Price sheets, gives each "
    "column's range)": (
        "改正所指的值后重新导入（README 的 `Price sheets` 一节给出每列的取值范围）"
    ),
    "check that the file can be read (its permissions, and that no program holds it locked)": (
        "请检查文件是否可读（权限，以及是否被其他程序锁定）"
    ),
    "`suanli schema sources` prints every key a sources file takes; examples/sources.toml "
    "shows each adapter": (
        "`suanli schema sources` 列出数据源文件的所有键；examples/sources.toml 有每种适配器的示例"
    ),
    'write the schedule as "mon 03:00", "daily 03:00" or a crontab line such as "0 3 * * mon"': (
        '计划请写作 "mon 03:00"、"daily 03:00" 或 crontab 行，如 "0 3 * * mon"'
    ),
    "add a [[source]] for it to the sources file, or give --provider one of the known ids": (
        "请在数据源文件中为它加一个 [[source]]，或让 --provider 取已知的 ID"
    ),
    "`suanli providers` lists the provider ids of the catalog": "`suanli providers` 列出目录中的服务商 ID",
    "write a whole number of weeks from 2 to 104, such as 12": "请写 2 到 104 之间的整数周数，如 12",
    "add the currency's rate to SUANLI_FX_RATES (README, section Settings), or set "
    "SUANLI_CURRENCY=CNY": (
        "请在 SUANLI_FX_RATES 中加上该币种的汇率（README 的 `Settings` 一节），或设 SUANLI_CURRENCY=CNY"
    ),
    "write the host file with one host (a name or an address) per line, at least two": (
        "主机文件每行写一台主机（名称或地址），至少两行"
    ),
    "on the rented machine run `nvidia-smi topo -m > topo.txt` and give that file": (
        "请在租用的机器上运行 `nvidia-smi topo -m > topo.txt`，再传入该文件"
    ),
    "run it on the rented machine, where NVIDIA's driver is installed, or give "
    "--nvidia-smi-xml FILE saved there": (
        "请在装有 NVIDIA 驱动的租用机器上运行，或用 --nvidia-smi-xml FILE 传入在那里保存的文件"
    ),
    "check the source's url and records path against what it answers; its last good "
    "snapshot stays current": (
        "请对照数据源的实际返回检查其 url 与 records 路径；其上一次成功的快照仍为当前快照"
    ),
    "save the sheet as UTF-8 (Excel: Save As, CSV UTF-8); README, section Price sheets, "
    "lists the encodings read": (
        "请把价格表另存为 UTF-8（Excel：另存为 CSV UTF-8）；README 的 `Price sheets` 一节列出可读的编码"
    ),
    "split the price list into smaller sheets (by provider or region) and import them "
    "together: suanli import a.csv b.csv": (
        "请把价格表按服务商或地域拆成几个较小的表一起导入：suanli import a.csv b.csv"
    ),
    "save the sheet as CSV (UTF-8), XLSX or a JSON list of objects, one per offer (README, "
    "section Price sheets)": (
        "请把价格表存为 CSV（UTF-8）、XLSX 或每条报价一个对象的 JSON 列表（README 的 `Price sheets` 一节）"
    ),
    "install the xlsx extra (pip install 'suanli[xlsx]'), or save the sheet as CSV": (
        "请安装 `xlsx` 扩展（`pip install 'suanli[xlsx]'`），或把价格表存为 CSV"
    ),
    "`{path} --help` says what {what} accepts": "`{path} --help` 说明 {what} 接受的值",
}
