"""Document links: the header's session file fields link to those files."""

from __future__ import annotations

from pi_lsp.core.checks.analysis import analyze
from pi_lsp.core.text.findings import Span
from pi_lsp.core.views.doclinks import DocLink, document_links

from .pi_sessions import doc, header, user

PATH = "/home/user/sessions/now.jsonl"
U = user("a" * 8, None)


def inner(text: str, line: int, value: str) -> Span:
    """The span of ``value`` (without its quotes) on ``line`` of ``text``."""
    start = text.split("\n")[line].index(f'"{value}"') + 1
    return Span(line, start, start + len(value))


def test_both_link_fields_of_the_header_in_order() -> None:
    text = doc(header(None, branchedFrom="/old/a.jsonl", parentSession="../p.jsonl"), U)
    assert document_links(analyze(text, PATH)) == [
        DocLink(inner(text, 0, "../p.jsonl"), "/home/user/p.jsonl", "parentSession"),
        DocLink(inner(text, 0, "/old/a.jsonl"), "/old/a.jsonl", "branchedFrom"),
    ]


def test_a_one_character_path_links_that_character() -> None:
    text = doc(header(parentSession="p"), U)
    assert document_links(analyze(text, PATH)) == [
        DocLink(inner(text, 0, "p"), "/home/user/sessions/p", "parentSession")
    ]


def test_the_header_may_follow_a_blank_line() -> None:
    text = "\n" + doc(header(parentSession="x.jsonl"), U)
    assert document_links(analyze(text, PATH)) == [
        DocLink(inner(text, 1, "x.jsonl"), "/home/user/sessions/x.jsonl", "parentSession")
    ]


def test_empty_or_non_string_values_and_files_without_header_link_nothing() -> None:
    for extra in ({"parentSession": ""}, {"parentSession": 5}, {"branchedFrom": None}, {}):
        assert document_links(analyze(doc(header(**extra), U), PATH)) == [], extra
    assert document_links(analyze(doc(U), PATH)) == []
