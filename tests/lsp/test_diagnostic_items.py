"""Diagnostics of findings an append kept are reused, not converted again.

:func:`pi_lsp.lsp.features.diagnostics.items` keeps, per open document, the diagnostic of each
finding it converted; a later analysis that kept the finding (the same object) gets the
same diagnostic, and what it publishes equals a conversion from scratch.
"""

from __future__ import annotations

from lsprotocol import types

from pi_lsp.core.checks.document import Document
from pi_lsp.core.entries.model import Options
from pi_lsp.lsp import proto, wire
from pi_lsp.lsp.features import diagnostics
from pi_lsp.lsp.server import PiLanguageServer

from ..core.pi_sessions import header, user

URI = "file:///tmp/items.jsonl"


def test_kept_findings_keep_their_diagnostics() -> None:
    ls = PiLanguageServer()
    ls.protocol.client_capabilities = types.ClientCapabilities()  # as after initialize
    text = header(3) + "\n" + user("a", "ghost") + "\n" + '{"broken' + "\n" + user("b", "a") + "\n"
    doc = Document.open(URI, text, 1, None, Options())
    ls.documents[URI] = doc
    first = doc.analysis
    snap = doc.snapshot()
    assert snap is not None
    before = diagnostics.items(ls, snap)
    assert [d.code for d in before] == ["PI400", "PI001"]
    doc.replace_all(text + user("c", "nope") + "\n")
    second = doc.analysis
    assert second.findings[:2] == first.findings[:2]
    snap = doc.snapshot()
    assert snap is not None
    after = diagnostics.items(ls, snap)
    assert after == proto.from_wire(wire.diagnostics(second.findings, second.lines, URI))
    assert [d.code for d in after] == ["PI400", "PI001", "PI400"]
    # the append kept the findings of the earlier lines, and their diagnostics with them
    assert second.findings[0] is first.findings[0] and second.findings[1] is first.findings[1]
    assert after[0] is before[0] and after[1] is before[1]
    # another encoding converts again
    ls.converted[URI] = (("utf-8", 0), ls.converted[URI][1])
    assert diagnostics.items(ls, snap)[0] is not before[0]
    diagnostics.clear(ls, URI)
    assert URI not in ls.converted


def test_a_kept_finding_on_another_line_object_is_converted_again() -> None:
    """A diagnostic is reused only while its lines are the very line objects it was made on."""
    ls = PiLanguageServer()
    ls.protocol.client_capabilities = types.ClientCapabilities()
    text = header(3) + "\n" + user("a", "ghost") + "\n" + user("b", "a") + "\n"
    doc = Document.open(URI, text, 1, None, Options())
    ls.documents[URI] = doc
    assert doc.analysis.findings  # analysed: the snapshot has an analysis
    snap = doc.snapshot()
    assert snap is not None
    (before,) = diagnostics.items(ls, snap)
    assert diagnostics.items(ls, snap)[0] is before
    key, kept = ls.converted[URI]
    ls.converted[URI] = (key, {k: (f, d, tuple(map(_copy, t))) for k, (f, d, t) in kept.items()})
    (again,) = diagnostics.items(ls, snap)
    assert again is not before and again == before


def _copy(text: str | None) -> str | None:
    """An equal string that is another object."""
    return None if text is None else "".join(list(text))
