"""The fuzz harness: mutate real and hand-written sessions and check every invariant.

Run it longer than the test suite does::

    python -m tests.robustness.fuzz --count 100000 --seed 7
    python -m tests.robustness.fuzz --count 2000 --target server --encoding utf-8
    python -m tests.robustness.fuzz --minutes 30 --out /tmp/pi-lsp-fuzz   # keep failing inputs

Targets (all by default, round robin):

- ``core``: ``analyze`` in process: no exception, spans inside the document, incremental
  re-analysis from a previous text equals a fresh analysis;
- ``cli``: ``check --format json`` (exit 0/1 matching the errors, valid JSON, ranges
  inside), ``tree``/``context``/``migrate`` (no traceback), ``migrate -o`` exactness, and
  no file written except the one asked for;
- ``server``: a ``python -m pi_lsp`` process per encoding; open, then every advertised
  request at random and awkward positions (see :mod:`tests.robustness.drive`);
- ``pi``: node's ``JSON.parse`` and pi's loader (``content.trim().split("\\n")``) agree
  with PI001/PI002/PI100 (needs ``node``; batched).

Problems that match a known, already-reported bug (:mod:`tests.robustness.known`) are
counted separately. Exit status: 0 when no new problem was found, 1 otherwise.
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import sys
import tempfile
import time
from pathlib import Path

from pi_lsp.core.checks.analysis import analyze

from . import drive, hostile, invariants, known, pi_judge
from .exactness import migration_problems
from .lspclient import LspClient, start_stdio
from .snapshots import changes, snapshot

TARGETS = ("core", "cli", "server", "pi")


class Report:
    """Counts, unique problem signatures with one example each, and saved inputs."""

    def __init__(self, out: Path | None) -> None:
        self.cases: collections.Counter[str] = collections.Counter()
        self.signatures: dict[str, tuple[str, str, int]] = {}
        self.counts: collections.Counter[str] = collections.Counter()
        self.known: collections.Counter[str] = collections.Counter()
        self.out = out
        self.saved = 0

    def add(self, target: str, name: str, data: bytes, problems: list[str]) -> None:
        self.cases[target] += 1
        for problem in problems:
            ident = known.classify(problem)
            if ident is not None:
                self.known[ident] += 1
                continue
            signature = target + ": " + re.sub(r"\d+", "N", problem)[:160]
            self.counts[signature] += 1
            if signature not in self.signatures:
                path = self._save(target, data)
                self.signatures[signature] = (name, problem[:1500], path)

    def _save(self, target: str, data: bytes) -> int:
        self.saved += 1
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)
            (self.out / f"{target}-{self.saved:04d}.jsonl").write_bytes(data)
        return self.saved

    def print(self, elapsed: float) -> None:
        total = sum(self.cases.values())
        per = ", ".join(f"{t} {n}" for t, n in sorted(self.cases.items()))
        print(f"\n{total} hostile cases in {elapsed:.1f}s ({per})")
        if self.known:
            print("known bugs hit: " + ", ".join(f"{k} x{n}" for k, n in self.known.items()))
        if not self.signatures:
            print("no new problems")
            return
        print(f"{len(self.signatures)} distinct new problems:")
        for signature, (name, problem, saved) in self.signatures.items():
            where = f" -> {self.out / ''}*-{saved:04d}.jsonl" if self.out else ""
            print(f"\n[{self.counts[signature]}x] {name}{where}\n  {problem}")


# -- targets ---------------------------------------------------------------------------------


def fuzz_core(text: str, previous: str, rng: random.Random) -> list[str]:
    problems = []
    try:
        a = analyze(text)
    except Exception as exc:  # the invariant: never raises
        return [f"analyze raised {type(exc).__name__}: {exc}"]
    lines = invariants.split(text)
    for f in a.findings:
        s = f.span
        if not (0 <= s.line < len(lines) and 0 <= s.start <= s.end <= len(lines[s.line])):
            problems.append(f"{f.code} span {s} outside the document")
    try:
        again = analyze(text, previous=analyze(previous))
    except Exception as exc:
        return [*problems, f"incremental analyze raised {type(exc).__name__}: {exc}"]
    fresh = [(f.code, f.span, f.message) for f in a.findings]
    incremental = [(f.code, f.span, f.message) for f in again.findings]
    if fresh != incremental:
        problems.append("incremental analysis differs from a fresh one")
    return problems


def fuzz_cli(data: bytes, work: Path, rng: random.Random) -> list[str]:
    path = work / "case.jsonl"
    path.write_bytes(data)
    before = snapshot(work)
    result = drive.run_cli_inproc(["check", "--format", "json", str(path)])
    problems = drive.check_cli_result(result, path, drive.disk_text(data))
    commands = _commands()
    for argv in (
        ["tree", str(path)],
        ["context", str(path)],
        ["context", "--json", str(path)],
        ["migrate", str(path)],
    ):
        if argv[0] in commands:
            r = drive.run_cli_inproc(argv)
            if r.code == -1 or invariants.TRACEBACK in r.stderr:
                problems.append(f"{argv[0]}: traceback: {invariants.traceback_summary(r.stderr)}")
    if changes(before, snapshot(work)):
        problems.append(f"a read-only command wrote files: {changes(before, snapshot(work))}")
    if "migrate" in commands:
        out = work / "migrated.jsonl"
        r = drive.run_cli_inproc(["migrate", str(path), "-o", str(out)])
        if r.code == -1 or invariants.TRACEBACK in r.stderr:
            problems.append(f"migrate -o: traceback: {invariants.traceback_summary(r.stderr)}")
        elif r.code == 0 and out.exists():
            try:
                old, new = data.decode("utf-8"), out.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                old = new = ""
            if old != new and "\r" not in old.replace("\r\n", "") and analyze(old).fmt == "pi":
                problems += [
                    f"migrate -o: {p}"
                    for p in migration_problems(old, new)
                    if not p.startswith("still PI103")
                ]
        elif r.code == 0:
            problems.append("migrate -o exited 0 but wrote nothing")
        out.unlink(missing_ok=True)
    if "fork" in commands:
        forked = work / "forked.jsonl"
        line = rng.randint(1, max(1, data.count(b"\n")))
        r = drive.run_cli_inproc(["fork", str(path), "--at-line", str(line), "-o", str(forked)])
        if r.code == -1 or invariants.TRACEBACK in r.stderr:
            problems.append(f"fork: traceback: {invariants.traceback_summary(r.stderr)}")
        elif r.code == 0:
            a = analyze(drive.disk_text(forked.read_bytes()))
            broken = sorted(
                {
                    f.code
                    for f in a.findings
                    if f.code in ("PI001", "PI002", "PI100") and "invalid UTF-8" not in f.message
                }
            )
            if broken:
                problems.append(f"fork wrote a file that is not a loadable session: {broken}")
        forked.unlink(missing_ok=True)
    leftovers = [p.name for p in work.iterdir() if p.name != "case.jsonl"]
    if leftovers:
        problems.append(f"files left behind: {leftovers}")
        for p in work.iterdir():
            if p.name != "case.jsonl" and p.is_file():
                p.unlink()
    return problems


_COMMANDS: set[str] | None = None


def _commands() -> set[str]:
    global _COMMANDS
    if _COMMANDS is None:
        from .test_cli_hostile import COMMANDS

        _COMMANDS = set(COMMANDS)
    return _COMMANDS


class Servers:
    """One server per encoding, restarted when one dies."""

    def __init__(self, encodings: list[str]) -> None:
        self.encodings = encodings
        self.clients: dict[str, LspClient] = {}

    def get(self, encoding: str) -> LspClient:
        client = self.clients.get(encoding)
        if client is None or not client.alive:
            client = start_stdio([encoding])
            self.clients[encoding] = client
        return client

    def close(self) -> list[str]:
        problems = []
        for encoding, client in self.clients.items():
            try:
                code = client.close()
            except AssertionError as exc:
                problems.append(f"{encoding} server: {exc}")
                continue
            if code not in (0, None):
                problems.append(f"{encoding} server exited with {code}")
        return problems


def fuzz_server(servers: Servers, text: str, rng: random.Random, n: int) -> list[str]:
    encoding = servers.encodings[n % len(servers.encodings)]
    client = servers.get(encoding)
    uri = f"file:///tmp/pi-lsp-fuzz/{n}.jsonl"
    outcome = drive.exercise_server(client, text, rng, uri=uri)
    problems = [f"[{encoding}] {p}" for p in outcome.problems]
    if not client.alive:
        problems.append(f"[{encoding}] server died: {client.stderr[-1500:]}")
        client.kill()
    # forget stderr already inspected, so a long run does not grow without bound
    client.stderr_chunks[:] = [client.stderr[-20000:].encode()] if client.stderr_chunks else []
    del client.notifications[:-50]
    return problems


def fuzz_pi(node: str, batch: list[tuple[str, bytes]], report: Report) -> None:
    items = []
    for name, data in batch:
        text = hostile.decode(data)
        if "\r" not in text.replace("\r\n", ""):
            items.append((name, data, text))
    if not items:
        return
    verdicts = pi_judge.judge(node, [t for _, _, t in items])
    for (name, data, text), verdict in zip(items, verdicts, strict=True):
        try:
            problems = pi_judge.disagreements(text, verdict)
        except Exception as exc:
            problems = [f"analyze raised {type(exc).__name__}: {exc}"]
        report.add("pi", name, data, problems)


# -- main ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.robustness.fuzz", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--count", type=int, default=1000, help="mutated sessions to generate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--target", action="append", choices=TARGETS, help="repeatable; default: all"
    )
    parser.add_argument(
        "--encoding",
        action="append",
        choices=("utf-16", "utf-8", "utf-32"),
        help="server position encodings to rotate through (default: all three)",
    )
    parser.add_argument("--no-fixtures", action="store_true", help="hand-written seeds only")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument(
        "--out", type=Path, default=None, help="save one input per new problem here"
    )
    parser.add_argument(
        "--server-every",
        type=int,
        default=1,
        help="send every Nth case to the server (it is the slowest target)",
    )
    args = parser.parse_args(argv)

    targets = tuple(args.target or TARGETS)
    node = pi_judge.node_path() if "pi" in targets else None
    if "pi" in targets and node is None:
        print("node not found: skipping the pi target", file=sys.stderr)
    rng = random.Random(args.seed)
    report = Report(args.out)
    servers = (
        Servers(args.encoding or ["utf-16", "utf-8", "utf-32"]) if "server" in targets else None
    )
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else None
    start = time.monotonic()
    pi_batch: list[tuple[str, bytes]] = []
    previous = hostile.v3_session()
    try:
        with tempfile.TemporaryDirectory(prefix="pi-lsp-fuzz-") as tmp:
            work = Path(tmp)
            for n, (name, data) in enumerate(hostile.cases(rng, args.count, not args.no_fixtures)):
                if deadline is not None and time.monotonic() > deadline:
                    break
                text = hostile.decode(data)
                if "core" in targets:
                    report.add("core", name, data, fuzz_core(text, previous, rng))
                if "cli" in targets:
                    report.add("cli", name, data, fuzz_cli(data, work, rng))
                if servers is not None and n % args.server_every == 0:
                    report.add("server", name, data, fuzz_server(servers, text, rng, n))
                if node is not None:
                    pi_batch.append((name, data))
                    if len(pi_batch) >= 200:
                        fuzz_pi(node, pi_batch, report)
                        pi_batch = []
                previous = text
                if n % 100 == 99:
                    print(
                        f"  {n + 1} cases, {time.monotonic() - start:.0f}s, "
                        f"{len(report.signatures)} new problems",
                        file=sys.stderr,
                    )
            if node is not None and pi_batch:
                fuzz_pi(node, pi_batch, report)
    finally:
        if servers is not None:
            for problem in servers.close():
                report.add("server", "shutdown", b"", [problem])
    report.print(time.monotonic() - start)
    return 1 if report.signatures else 0


if __name__ == "__main__":
    raise SystemExit(main())
