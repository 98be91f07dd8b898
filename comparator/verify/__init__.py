"""Acceptance checks of a rented machine (pure): is it what the offer sold?

:mod:`.nvsmi` reads ``nvidia-smi -q -x`` and ``topo -m``; :mod:`.checks` judges them against the
offer; :mod:`.measure` runs optional PyTorch measurements; :mod:`.acceptance` puts it together;
:mod:`.nodes` runs the all-reduce across machines (:mod:`.nodes_worker` per rank, :mod:`.ring`
without PyTorch).
Storing a verdict is :mod:`comparator.services.verification`'s work.
"""

from comparator.verify.acceptance import VerifyResult, evaluate
from comparator.verify.measure import NOT_REQUESTED, Measurements, measure
from comparator.verify.nodes import NodeRun, nodes_check, read_hostfile, run_nodes
from comparator.verify.nvsmi import (
    GpuReading,
    MachineReport,
    collect_machine,
    find_nvidia_smi,
    parse_smi_xml,
    parse_topology,
)

__all__ = [
    "NOT_REQUESTED",
    "GpuReading",
    "MachineReport",
    "Measurements",
    "NodeRun",
    "VerifyResult",
    "collect_machine",
    "evaluate",
    "find_nvidia_smi",
    "measure",
    "nodes_check",
    "parse_smi_xml",
    "parse_topology",
    "read_hostfile",
    "run_nodes",
]
