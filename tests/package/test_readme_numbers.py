"""The README's worked numbers are the tool's: ``scripts/readme_numbers.py`` computes every
number the README quotes from an example (plans of the examples on the demo catalog, the first
quote number, the demo catalog's counts, the latency and model figures), and this test fails
while the README says otherwise (``scripts/readme_numbers.py --write`` updates it)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from tests.conftest import REPO


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "readme_numbers", REPO / "scripts/readme_numbers.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("readme_numbers", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_readme_numbers_are_the_tools_output() -> None:
    numbers = _script()
    figures = numbers.compute()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    problems = numbers.problems(readme, figures)
    assert not problems, "\n".join(
        [*problems, "run: .venv/bin/python scripts/readme_numbers.py --write"]
    )


def test_every_sentence_is_in_the_readme_once() -> None:
    numbers = _script()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for sentence in numbers.SENTENCES:
        pattern, _ = numbers._pattern(sentence)
        assert len(pattern.findall(readme)) == 1, sentence


def test_a_changed_figure_fails_and_is_written_back_across_lines() -> None:
    numbers = _script()
    sentence = numbers.SENTENCES[1]  # the seeds' figures, over two lines of the README
    figures = {
        "seeds_card_hours": "289.8",
        "seeds_compute_hours": "36.2",
        "seeds_cards": "8",
        "seeds_billed_hours": "37",
        "seeds_card_hour_price": "11",
        "seeds_total": "2,640.00",
    }
    stale = sentence.format(**{**figures, "seeds_total": "4,092.00"})
    stale = stale.replace(" cards, billed", "\ncards, billed")
    readme = f"intro\n{stale}\nmore\n"
    found = [p for p in numbers.problems(readme, figures) if "seeds_total" in p]
    assert found == ["README.md says seeds_total = '4,092.00'; the tool gives '2,640.00'"]
    fixed = numbers.written(readme, figures)
    assert "2,640.00 元" in fixed and "\ncards, billed" in fixed and "4,092" not in fixed
