"""``pi-lsp export`` through a real process: formats, leaf, branches, redaction, output file."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli.cli_support import run_cli
from tests.core.pi_sessions import assistant, doc, header, result, user

SECRET = "sk-ant-api03-" + "x" * 40

# u1 → a1 → (u2 → a2 | u3 → a3 → r3): the leaf pi resumes is r3, on the second branch
TEXT = doc(
    header(),
    user("u1", None, "first question with " + SECRET),
    assistant("a1", "u1", "an **answer**"),
    user("u2", "a1", "left branch"),
    assistant("a2", "u2", "left answer"),
    user("u3", "a1", "right branch <script>alert(1)</script>"),
    assistant("a3", "u3", "right answer", calls=("c1",)),
    result("r3", "a3", "c1", "\n".join(f"out {n}" for n in range(500))),
)


def session(tmp_path: Path, text: str = TEXT) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def test_markdown_to_stdout_follows_the_resumed_leaf(tmp_path: Path) -> None:
    out = run_cli("export", session(tmp_path))
    assert out.returncode == 0, out.stderr
    md = out.stdout
    order = ["first question", "an **answer**", "right branch", "right answer", "out 0"]
    at = [md.find(t) for t in order]
    assert -1 not in at and at == sorted(at)
    assert "left answer" not in md
    assert "## User · line 2" in md
    assert "out 199" in md and "out 200" not in md and "… 300 more lines" in md
    assert SECRET in md  # nothing is masked unless asked


def test_leaf_and_all_branches(tmp_path: Path) -> None:
    path = session(tmp_path)
    left = run_cli("export", path, "--leaf", "a2").stdout
    assert "left answer" in left and "right answer" not in left
    both = run_cli("export", path, "--all-branches").stdout
    assert both.count("first question") == 1  # the shared part once
    assert "left answer" in both and "right answer" in both
    assert "# Branch to leaf a2" in both


def test_html_is_self_contained_and_escaped(tmp_path: Path) -> None:
    target = tmp_path / "out.html"
    run = run_cli("export", session(tmp_path), "-o", target)
    assert run.returncode == 0, run.stderr
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert "<script" not in page and "&lt;script&gt;" in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", page)
    assert "Content-Security-Policy" in page
    assert '<details class="pi-output">' in page  # the long result is folded


def test_redact(tmp_path: Path) -> None:
    out = run_cli("export", session(tmp_path), "--redact", "--format", "html")
    assert out.returncode == 0
    assert SECRET not in out.stdout and "sk-ant-[redacted]" in out.stdout


def test_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    path = session(tmp_path)
    target = tmp_path / "out.md"
    target.write_text("mine", encoding="utf-8")
    refused = run_cli("export", path, "-o", target)
    assert refused.returncode == 2
    assert "already exists" in refused.stderr and target.read_text(encoding="utf-8") == "mine"
    forced = run_cli("export", path, "-o", target, "--force")
    assert forced.returncode == 0, forced.stderr
    assert "right answer" in target.read_text(encoding="utf-8")
    assert (tmp_path / "out.md.bak").read_text(encoding="utf-8") == "mine"


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    cases = [
        ("export", tmp_path / "missing.jsonl"),
        ("export", session(tmp_path), "--leaf", "nope"),
        ("export", session(tmp_path), "--format", "pdf"),
    ]
    for args in cases:
        out = run_cli(*args)
        assert out.returncode == 2, args
        assert "Traceback" not in out.stderr and out.stdout == ""
    empty = run_cli("export", session(tmp_path, ""))  # pi would not open it: check's verdict
    assert empty.returncode == 1 and "the file is empty" in empty.stderr and empty.stdout == ""
    missing = run_cli("export", tmp_path / "missing.jsonl")
    assert len(missing.stderr.strip().splitlines()) == 1


def test_a_v1_entry_is_named_by_its_line(tmp_path: Path) -> None:
    v1 = doc(header(None), user(None, False, "old one"), assistant(None, False, "old answer"))
    path = session(tmp_path, v1)
    for args in (["--leaf", "L1"], ["--leaf-line", "2"]):
        out = run_cli("export", path, *args)
        assert out.returncode == 0, out.stderr
        assert "old one" in out.stdout and "old answer" not in out.stdout
    wrong = run_cli("export", path, "--leaf-line", "1")
    assert wrong.returncode == 2 and "line 1 holds no entry" in wrong.stderr
