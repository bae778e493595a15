"""PI500 graded by pi's loader limits (core/limits.py), and the heaviest entries in the
header's hover and code lens."""

from __future__ import annotations

import json

import pytest

from pi_lsp.core import limits
from pi_lsp.core.analysis import analyze
from pi_lsp.core.findings import Severity
from pi_lsp.core.hovers import hover_at
from pi_lsp.core.lens import code_lenses
from pi_lsp.core.model import Options

from .pi_sessions import TS, assistant, doc, header, user

A, B, C = (c * 8 for c in "abc")


def image_entry(ident: str, parent: str, size: int, images: int = 1) -> str:
    blocks = [{"type": "image", "data": "A" * size, "mimeType": "image/png"}] * images
    obj = {
        "type": "message",
        "id": ident,
        "parentId": parent,
        "timestamp": TS,
        "message": {"role": "user", "content": blocks, "timestamp": 1},
    }
    return json.dumps(obj, separators=(",", ":"))


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limits scaled down by 2**20: 64 B is slow, 512 B is pi 1.6's line limit."""
    monkeypatch.setattr(limits, "SLOW_LINE", 64 * 1024)
    monkeypatch.setattr(limits, "PI16_MAX_LINE", 512 * 1024)
    monkeypatch.setattr(limits, "PI073_MAX_FILE", 512 * 1024)
    monkeypatch.setattr(limits, "NEAR_FILE", 384 * 1024)


def test_v8_limit_and_pi_limits() -> None:
    assert limits.V8_MAX_STRING == 536_870_888
    assert limits.PI073_MAX_FILE == 536_870_887 and limits.PI16_MAX_LINE == 536_870_888


@pytest.mark.parametrize(
    "size, severity",
    [
        (1000, None),
        (2000, Severity.INFORMATION),
        (64 * 1024, Severity.WARNING),
        (512 * 1024 + 1, Severity.ERROR),
    ],
)
def test_line_grades(small_limits: None, size: int, severity: Severity | None) -> None:
    found = limits.line_size("A" * size, 1024)
    assert (found[0] if found else None) == severity


def test_line_limit_counts_utf16_units(small_limits: None) -> None:
    # 300 K astral characters: 1.2 MB of UTF-8, 600 K UTF-16 units (over), 300 K code points
    found = limits.line_size("😀" * 300_000, 1024)
    assert found is not None and found[0] == Severity.ERROR
    found = limits.line_size("é" * 300_000, 1024)  # 600 KB, 300 K units: slow, loadable
    assert found is not None and found[0] == Severity.WARNING


def test_file_near_pi_073s_limit_warns_on_the_header(small_limits: None) -> None:
    text = doc(
        header(),
        user(A, None),
        image_entry(B, A, 250_000, images=2),
        image_entry(C, B, 100_000),
    )
    a = analyze(text, options=Options(large_line=1024 * 1024))
    found = [f for f in a.findings if f.code == "PI500"]
    assert [(f.span.line, f.severity) for f in found] == [(0, Severity.WARNING)]
    assert "pi 0.73.1 cannot load it" in found[0].message and "pi 1.6" in found[0].message
    assert [r.span.line for r in found[0].related] == [2, 3, 1]
    assert found[0].related[0].message.startswith("line 3: 0.5 MiB (2 images)")


def test_small_file_gets_no_file_warning() -> None:
    a = analyze(doc(header(), user(A, None), assistant(B, A)))
    assert limits.check(a) == [] and limits.heaviest_text(a) is None


def test_heaviest_entries_in_hover_and_lens() -> None:
    text = doc(header(), user(A, None), image_entry(B, A, 3000, images=3), image_entry(C, B, 1500))
    a = analyze(text, options=Options(large_line=1000))
    summary = "largest entries: line 3: 0.0 MiB (3 images); line 4: 0.0 MiB (1 image)"
    assert limits.heaviest_text(a) == summary
    hover = hover_at(a, 0, 0)
    assert hover is not None and hover.markdown.endswith(f"- {summary}")
    assert summary in [lens.title for lens in code_lenses(a) if lens.line == 0]
    plain = analyze(text)
    assert not any(lens.title.startswith("largest") for lens in code_lenses(plain))
