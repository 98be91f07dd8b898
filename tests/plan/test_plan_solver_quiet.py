"""HiGHS is silenced by its own options, given in the planner's context: no redirected stdout."""

from __future__ import annotations

import pytest

from comparator.plan.joint.milp.lp import Model, new_highs


def tiny_model() -> Model:
    model = Model()
    a, b = model.var(1.0), model.var(2.0)
    model.row([(a, 1.0), (b, 1.0)], 1, 1)
    return model


def test_a_quiet_highs_writes_nothing_to_the_process_stdout(
    capfd: pytest.CaptureFixture[str],
) -> None:
    highs = new_highs()
    highs.passModel(tiny_model().lp())
    highs.run()
    assert highs.modelStatusToString(highs.getModelStatus()) == "Optimal"
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_the_log_is_there_when_the_context_asks(capfd: pytest.CaptureFixture[str]) -> None:
    highs = new_highs(log=True)
    highs.passModel(tiny_model().lp())
    highs.run()
    assert "HiGHS" in capfd.readouterr().out
