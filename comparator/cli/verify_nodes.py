"""``suanli verify --nodes HOSTFILE``: the all-reduce bandwidth across the rented machines,
judged against the offer's stated node network."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from comparator.cli._common import State, console, emit_json, working
from comparator.domain import OfferView
from comparator.errors import InputError, Msg
from comparator.i18n import label, status_label, verify_check_label

COLLECTIVES = ("auto", "ring", "gloo", "nccl")
_COLOUR = {"pass": "green", "warn": "yellow", "fail": "bold red"}


def verify_nodes(
    st: State,
    hostfile: Path,
    offer: OfferView | None,
    collective: str,
    mib: float,
    json_out: bool,
    strict: bool,
) -> None:
    from comparator.verify import nodes_check, read_hostfile, run_nodes

    if collective not in COLLECTIVES:
        raise InputError(
            "--collective: expected auto, ring, gloo or nccl; got {value!r}",
            value=collective,
            hint=Msg("write auto (the default), ring, gloo or nccl"),
        )
    hosts = read_hostfile(hostfile)
    with working(label(st.lang, "nodes_running"), quiet=json_out):
        run = run_nodes(hosts, collective=collective, mib=mib)
    check = nodes_check(run, offer.network if offer else None, st.lang)
    if json_out:
        emit_json(
            {
                "nodes": run.to_json(),
                "offer_id": offer.offer_id if offer else None,
                "network": offer.network if offer else None,
                "checks": [check.to_json()],
                "status": check.status,
            }
        )
    else:
        out = console()
        colour = _COLOUR[check.status]
        out.print(
            f"{verify_check_label(st.lang, check.id)}: [{colour}]"
            f"{status_label(st.lang, check.status)}[/] {escape(check.message)}"
        )
        for rank in run.ranks:
            out.print(f"[dim]{escape(str(rank))}[/]")
    if strict and check.status == "fail":
        raise typer.Exit(3)
