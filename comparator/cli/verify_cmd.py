"""``suanli verify``: acceptance check of a rented machine against the offer that was bought."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from comparator.cli._common import (
    JSON_OPTION,
    console,
    emit_json,
    open_catalog,
    state,
    working,
)
from comparator.cli.helptext import HelpCommand
from comparator.cli.tables import TEXT, CliTable, print_table
from comparator.cli.verify_calibration import CALIBRATION_OUT, TRIAL_TOKENS, write_calibration
from comparator.domain import find_gpu
from comparator.errors import InputError, Msg
from comparator.i18n import say, status_label, verify_check_label

if TYPE_CHECKING:  # the checks load inside the command: `suanli --help` stays fast
    from comparator.services import Verified
    from comparator.verify import GpuReading, MachineReport, VerifyResult

_COLOUR = {"pass": "green", "warn": "yellow", "fail": "bold red"}


def _status(lang: str, status: str) -> str:
    return f"[{_COLOUR[status]}]{status_label(lang, status)}[/]"


def register(app: typer.Typer) -> None:
    app.command("verify", cls=HelpCommand)(verify)


def verify(
    ctx: typer.Context,
    xml_file: Path | None = typer.Option(
        None,
        "--nvidia-smi-xml",
        exists=True,
        dir_okay=False,
        help="Saved `nvidia-smi -q -x` output (default: run it here).",
    ),
    topo_file: Path | None = typer.Option(
        None,
        "--topo",
        exists=True,
        dir_okay=False,
        help="Saved `nvidia-smi topo -m` output (NVLink vs PCIe paths).",
    ),
    offer_id: str | None = typer.Option(
        None, "--offer", help="Offer id (see `suanli offers`) the machine must match."
    ),
    cards: int | None = typer.Option(
        None, "--cards", min=1, help="Cards this machine should have (default: from the offer)."
    ),
    measure_opt: bool | None = typer.Option(
        None,
        "--measure/--no-measure",
        help="Measure bf16 matmul, memory and NCCL bandwidth with PyTorch "
        "(default: only when nvidia-smi runs here).",
    ),
    quote: str | None = typer.Option(
        None, "--quote", help="Attach the verdict to this quote number in the catalog."
    ),
    strict: bool = typer.Option(False, "--strict", help="Exit 3 when the verdict is fail."),
    nodes: Path | None = typer.Option(
        None,
        "--nodes",
        exists=True,
        dir_okay=False,
        help="Host file (one machine per line): run an all-reduce bandwidth test across them.",
    ),
    collective: str = typer.Option(
        "auto",
        "--collective",
        help="auto (NCCL or gloo with PyTorch, else the built-in TCP ring), ring, gloo or nccl.",
    ),
    allreduce_mib: float = typer.Option(
        64.0, "--allreduce-mib", min=0.01, help="MiB all-reduced per iteration (default 64)."
    ),
    calibration_out: Path | None = CALIBRATION_OUT,
    trial_tokens: float | None = TRIAL_TOKENS,
    json_out: bool = JSON_OPTION,
) -> None:
    """Acceptance check of a rented machine: model, memory, processes, ECC, PCIe and NVLink.

    Example:  suanli verify --nvidia-smi-xml smi.xml --topo topo.txt --offer 17 --strict
    """
    st = state(ctx)
    if nodes is not None:
        from comparator.cli.verify_nodes import verify_nodes
        from comparator.services import offer_to_verify

        offer = offer_to_verify(lambda: open_catalog(st), offer_id)
        verify_nodes(st, nodes, offer, collective, allreduce_mib, json_out, strict)
        return
    with working(say(st.lang, "Reading this machine…"), quiet=json_out):
        report, live = read_machine(xml_file, topo_file)
    wanted = measure_opt if measure_opt is not None else live
    from comparator.services import verify_machine
    from comparator.verify import NOT_REQUESTED, Measurements, measure

    def measured() -> Measurements:
        if not wanted:
            return NOT_REQUESTED
        # bf16 matmul, memory and NCCL runs take tens of seconds
        with working(say(st.lang, "Measuring compute and bandwidth…"), quiet=json_out):
            return measure()

    verified = verify_machine(
        report,
        lambda: open_catalog(st),
        offer_id=offer_id,
        cards=cards,
        measure=measured,
        lang=st.lang,
        quote_number=quote,
        created_at=datetime.now(st.settings.timezone),
    )
    result, stored = verified.result, _stored(verified)
    write_calibration(calibration_out, report, trial_tokens, result.measurements)
    if json_out:
        emit_json({**result.to_json(), "stored": stored})
    else:
        print_result(result, st.lang, stored)
    if strict and result.status == "fail":
        raise typer.Exit(3)


def read_machine(xml_file: Path | None, topo_file: Path | None) -> tuple[MachineReport, bool]:
    """The report from saved files, or from running nvidia-smi here (``live`` is then True)."""
    from comparator.verify import (
        collect_machine,
        find_nvidia_smi,
        parse_smi_xml,
        parse_topology,
    )

    topology = parse_topology(topo_file.read_text("utf-8"), str(topo_file)) if topo_file else None
    if xml_file is not None:
        return parse_smi_xml(xml_file.read_bytes(), str(xml_file), topology), False
    executable = find_nvidia_smi()
    if executable is None:
        raise InputError(
            "nvidia-smi is not on PATH here: on the rented machine run `nvidia-smi -q -x > smi.xml` "
            "(and `nvidia-smi topo -m > topo.txt`), then pass --nvidia-smi-xml smi.xml "
            "[--topo topo.txt]",
            hint=Msg(
                "on the rented machine run `nvidia-smi -q -x > smi.xml` and give --nvidia-smi-xml smi.xml"
            ),
        )
    report = collect_machine(executable)
    if topology is not None:  # the file given stands for whatever ran here
        report = dataclasses.replace(report, topology=topology, topology_problem=None)
    return report, True


def _stored(verified: Verified) -> dict[str, Any] | None:
    if verified.stored_id is None:
        return None
    return {
        "verification_id": verified.stored_id,
        "quote_number": verified.quote_number,
        "created_at": verified.created_at,
    }


# --- human output --------------------------------------------------------------------------


def _gpu_row(gpu: GpuReading) -> list[str]:
    spec, link = find_gpu(gpu.name), gpu.pcie
    memory = f"{gpu.memory_used_mib or 0} / {gpu.memory_total_mib or '?'}"
    pcie = f"gen{link.current_gen or '?'}/{link.max_gen or '?'} x{link.current_width or '?'}"
    ecc = "—" if gpu.ecc.mode is None else str(gpu.ecc.total)
    model = spec.name if spec else escape(gpu.name)
    return [str(gpu.index), model, memory, ecc, str(len(gpu.processes)), pcie]


def _gpu_table(result: VerifyResult, lang: str) -> CliTable:
    table = CliTable(title=say(lang, "GPUs"))
    for header in (
        "#",
        "GPU\x04Model",
        "Memory used/total MiB",
        "ECC errors",
        "Procs",
        "PCIe",
    ):
        table.add_column(say(lang, header))
    for gpu in result.report.gpus:
        table.add_row(*_gpu_row(gpu))
    return table


def _check_table(result: VerifyResult, lang: str) -> CliTable:
    table = CliTable(title=say(lang, "Checks"), show_lines=True)
    table.add_column(say(lang, "Check"))
    table.add_column(say(lang, "Result"))
    table.add_column(say(lang, "Details"), kind=TEXT)
    for check in result.checks:
        table.add_row(
            verify_check_label(lang, check.id), _status(lang, check.status), escape(check.message)
        )
    return table


def _heading(result: VerifyResult, lang: str) -> str:
    expected = result.expected
    if expected.offer_id is None:
        return say(lang, "Machine acceptance check (no offer given)")
    bought = f"{expected.gpu_name} × {expected.cards}" + (" NVLink" if expected.nvlink else "")
    return say(
        lang,
        "Machine acceptance check: offer {offer_id} ({bought})",
        offer_id=expected.offer_id,
        bought=bought,
    )


def print_result(result: VerifyResult, lang: str, stored: dict[str, Any] | None) -> None:
    out = console()
    out.print(f"[bold]{escape(_heading(result, lang))}[/]")
    print_table(out, _gpu_table(result, lang))
    print_table(out, _check_table(result, lang))
    out.print(escape(result.measurements.message(lang)))
    out.print(say(lang, "Verdict: ") + _status(lang, result.status))
    if stored:
        number, stored_id = stored["quote_number"], stored["verification_id"]
        out.print(
            say(
                lang,
                "Attached to quote {number} (verification #{stored_id})",
                number=number,
                stored_id=stored_id,
            )
        )
