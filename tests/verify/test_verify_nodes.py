"""Issue 24: `suanli verify --nodes HOSTFILE` — an all-reduce across machines, launched as two
real processes on 127.0.0.1, collected, and judged against the offer's stated network.

The built-in TCP ring (numpy over sockets) runs everywhere; PyTorch's gloo backend runs when
PyTorch is installed (skipped otherwise: its CUDA wheels are gigabytes, not a test dependency).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from comparator.verify import NodeRun, nodes_check, read_hostfile, run_nodes
from comparator.verify.ring import connect_ring, ring_allreduce

HAS_TORCH = importlib.util.find_spec("torch") is not None
SHEET = """provider,region,gpu,cards,billing,price,currency,network,observed_at
demo-nanshan,gd-sz-1,A100 80G,8,hourly,90,CNY,{network},2026-11-25T10:00:00+08:00
"""


def hostfile(tmp_path: Path, *hosts: str) -> Path:
    path = tmp_path / "hosts"
    path.write_text("# the rented machines\n" + "\n".join(hosts) + "\n", encoding="utf-8")
    return path


def test_two_ranks_on_loopback_sum_right_and_report_a_bandwidth(tmp_path: Path) -> None:
    hosts = read_hostfile(hostfile(tmp_path, "127.0.0.1", "127.0.0.1 slots=1"))
    run = run_nodes(hosts, collective="ring", mib=4, iterations=3, timeout_s=120)
    assert run.error is None, run.ranks
    assert [r["rank"] for r in run.ranks] == [0, 1] and run.collective == "ring"
    assert run.sum_right and run.bytes == 4 << 20
    assert run.busbw_gbs is not None and run.busbw_gbs > 0
    # two ranks: the bus bandwidth equals the algorithm bandwidth (2(n-1)/n = 1)
    assert run.algbw_gbs == pytest.approx(run.busbw_gbs)


def test_the_ring_sums_uneven_chunks_over_three_ranks() -> None:
    """Three ranks in threads of this process: a buffer whose length does not divide by 3."""
    import socket
    import threading

    with socket.socket() as probe:
        probe.bind(("", 0))
        port = probe.getsockname()[1]
    results: dict[int, np.ndarray] = {}

    def rank(r: int) -> None:
        ring = connect_ring(r, 3, ("127.0.0.1", port), "127.0.0.1", 30)
        buffer = np.arange(10, dtype=np.float32) * (r + 1)
        ring_allreduce(ring, buffer)
        ring.close()
        results[r] = buffer

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    expected = np.arange(10, dtype=np.float32) * 6
    assert sorted(results) == [0, 1, 2]
    for buffer in results.values():
        np.testing.assert_array_equal(buffer, expected)


def test_the_judgement_compares_with_the_offers_network() -> None:
    measured = NodeRun(("a", "b"), "ring", busbw_gbs=20.0, algbw_gbs=20.0, bytes=1, sum_right=True)
    assert nodes_check(measured, "IB 200G", "en").status == "pass"  # 25 GB/s: 80 %
    assert nodes_check(measured, "IB 400G", "en").status == "warn"  # 50 GB/s: 40 %
    low = nodes_check(measured, "8x400G NDR", "en")
    assert low.status == "fail" and "400 GB/s" in low.message
    unjudged = nodes_check(measured, None, "en")
    assert unjudged.status == "pass" and "no registry spec" in unjudged.message
    broken = NodeRun(("a", "b"), "ring", error="rank 1: exit 1: refused")
    assert nodes_check(broken, "IB 200G", "en").status == "fail"
    wrong = NodeRun(("a", "b"), "ring", busbw_gbs=20.0, algbw_gbs=20.0, bytes=1)
    assert "wrong" in nodes_check(wrong, "IB 200G", "en").message


@pytest.mark.parametrize(("network", "status"), [("eth-0.01g", "pass"), ("ib-8x400g", "fail")])
def test_verify_nodes_end_to_end_judges_the_bought_offer(
    cli: Any, tmp_path: Path, network: str, status: str
) -> None:
    assert cli("init", "--no-demo").code == 0
    sheet = tmp_path / "offer.csv"
    sheet.write_text(SHEET.format(network=network), encoding="utf-8")
    profile = Path(__file__).resolve().parents[2] / "providers" / "demo" / "demo-nanshan.toml"
    imported = cli("import", "--profile", str(profile), str(sheet))
    assert imported.code == 0, imported.err
    offer_id = cli("offers", "--json").json()["offers"][0]["offer_id"]
    hosts = str(hostfile(tmp_path, "127.0.0.1", "127.0.0.1"))
    args = ["verify", "--measure", "--nodes", hosts, "--collective", "ring"]
    args += ["--allreduce-mib", "2", "--offer", str(offer_id)]
    result = cli(*args, "--json", lang="en")
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["status"] == status and doc["network"] == network
    assert doc["nodes"]["busbw_gbs"] > 0 and doc["nodes"]["sum_right"]
    assert doc["checks"][0]["id"] == "nodes_bandwidth"
    text = cli(*args, lang="en")
    assert "Inter-node bandwidth" in text.out and "GB/s" in text.out


def test_a_host_file_with_one_host_is_refused(cli: Any, tmp_path: Path) -> None:
    result = cli("verify", "--nodes", str(hostfile(tmp_path, "127.0.0.1")), lang="en")
    assert result.code != 0 and "at least two hosts" in result.err


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed (gloo backend)")
def test_gloo_on_loopback_when_pytorch_is_installed(tmp_path: Path) -> None:
    hosts = read_hostfile(hostfile(tmp_path, "127.0.0.1", "127.0.0.1"))
    run = run_nodes(hosts, collective="gloo", mib=4, iterations=3, timeout_s=180)
    assert run.error is None and run.collective == "gloo" and run.sum_right
    assert run.busbw_gbs is not None and run.busbw_gbs > 0
