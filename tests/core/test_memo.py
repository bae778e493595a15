"""Views are computed once per analysis (or per state of its links), whatever they return."""

from __future__ import annotations

from dataclasses import dataclass, field

from pi_lsp.core.entries.memo import Views, per_analysis, per_links


@dataclass
class Fake:
    """Stands for an analysis: its own views, and link views it may share."""

    views: Views = field(default_factory=Views)
    link_views: Views = field(default_factory=Views)


def counting() -> tuple[list[object], object]:
    calls: list[object] = []

    def view(a: object) -> object:
        calls.append(a)
        return None  # a falsy value is remembered as well as any other

    return calls, view


def test_a_view_is_computed_on_the_first_call_only() -> None:
    calls, view = counting()
    memo = per_analysis(view)  # type: ignore[arg-type]
    a = Fake()
    assert memo(a) is None and memo(a) is None
    assert calls == [a]
    b = Fake()
    memo(b)
    assert calls == [a, b]


def test_each_view_has_its_own_slot() -> None:
    a = Fake()
    first = per_analysis(lambda a: "first")
    second = per_analysis(lambda a: "second")
    assert (first(a), second(a), first(a)) == ("first", "second", "first")


def test_link_views_are_shared_by_analyses_with_the_same_links() -> None:
    calls, view = counting()
    memo = per_links(view)  # type: ignore[arg-type]
    shared = Views()
    a, b, c = Fake(link_views=shared), Fake(link_views=shared), Fake()
    memo(a)
    memo(b)
    assert calls == [a]  # b reuses what a computed
    memo(c)
    assert calls == [a, c]
    # per-analysis views of the same analyses stay apart
    calls2, view2 = counting()
    whole = per_analysis(view2)  # type: ignore[arg-type]
    whole(a)
    whole(b)
    assert calls2 == [a, b]


def test_views_get_computes_with_the_analysis_given() -> None:
    views = Views()
    assert views.get(lambda a: a * 2, 21) == 42
    assert views.get(len, "abc") == 3
    assert views.get(len, "longer") == 3  # already computed for this set of views


def test_memoised_views_keep_their_name_and_doc() -> None:
    def totals(a: Fake) -> int:
        """The totals."""
        return 1

    for wrap in (per_analysis, per_links):
        memo = wrap(totals)
        assert (memo.__name__, memo.__doc__) == ("totals", "The totals.")
