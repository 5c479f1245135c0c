"""The Python examples of the documentation run: every ```python block of the README and of docs/*.md is
executed (each page's blocks in order, in one namespace per page), so the pages cannot go stale. A block
that is not meant to run says so in its info string (```python no-run, e.g. one that needs a cluster)."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "python" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
# Every fence that looks like Python: ```python runs, ```python no-run is shown only; any other spelling
# (```py, ```python3) would be skipped without a word, so it is refused.
FENCE = re.compile(r"^```(py\S*.*)$", re.M)


def blocks(page: pathlib.Path):
    return BLOCK.findall(page.read_text())


def test_the_pages_have_examples():
    assert sum(len(blocks(p)) for p in PAGES) >= 4
    for page in PAGES:
        for info in FENCE.findall(page.read_text()):
            assert info.strip() in ("python", "python no-run"), (page.name, info)


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)], ids=lambda p: p.name)
def test_every_python_example_runs(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for code in blocks(page):
        exec(compile(code, str(page), "exec"), namespace)
