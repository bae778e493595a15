"""Hostile session files: hand-written seeds, mutators, and pathological generators.

Everything here is deterministic given a :class:`random.Random`, works on ``bytes`` (what
is on disk), and never needs the shared fixtures (they are used as extra seeds when
present). The fuzz harness (:mod:`tests.robustness.fuzz`) and the pytest suite share it.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures"
TS = "2026-01-01T00:00:00.000Z"


def _dump(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def header(version: int | None = 3, ident: str = "0193e1a2-0000-7000-8000-000000000001") -> str:
    obj: dict[str, object] = {"type": "session"}
    if version is not None:
        obj["version"] = version
    obj.update({"id": ident, "timestamp": TS, "cwd": "/home/u/p"})
    return _dump(obj)


def user(ident: str, parent: str | None, text: str = "hello") -> str:
    return _dump(
        {
            "type": "message",
            "id": ident,
            "parentId": parent,
            "timestamp": TS,
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": text}],
                "timestamp": 1,
            },
        }
    )


def assistant(ident: str, parent: str | None, text: str = "ok", calls: tuple[str, ...] = ()) -> str:
    content: list[dict[str, object]] = [{"type": "thinking", "thinking": "hmm"}]
    content.append({"type": "text", "text": text})
    for call in calls:
        content.append({"type": "toolCall", "id": call, "name": "bash", "arguments": {"cmd": "ls"}})
    return _dump(
        {
            "type": "message",
            "id": ident,
            "parentId": parent,
            "timestamp": TS,
            "message": {
                "role": "assistant",
                "content": content,
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": {
                    "input": 10,
                    "output": 5,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 15,
                    "cost": {
                        "input": 0.1,
                        "output": 0.2,
                        "cacheRead": 0,
                        "cacheWrite": 0,
                        "total": 0.3,
                    },
                },
                "stopReason": "toolUse" if calls else "stop",
                "timestamp": 2,
            },
        }
    )


def tool_result(ident: str, parent: str, call: str, text: str = "file.txt") -> str:
    return _dump(
        {
            "type": "message",
            "id": ident,
            "parentId": parent,
            "timestamp": TS,
            "message": {
                "role": "toolResult",
                "toolCallId": call,
                "toolName": "bash",
                "content": [{"type": "text", "text": text}],
                "isError": False,
                "timestamp": 3,
            },
        }
    )


def v3_session() -> str:
    """A small v3 session with a branch, tool calls, a compaction, labels and a summary."""
    lines = [
        header(3),
        _dump(
            {
                "type": "model_change",
                "id": "m0000001",
                "parentId": None,
                "timestamp": TS,
                "provider": "anthropic",
                "modelId": "claude-sonnet-4-5",
            }
        ),
        user("u0000001", "m0000001", "list the files \u2028 please 🚀"),
        assistant("a0000001", "u0000001", "running", ("call_1",)),
        tool_result("t0000001", "a0000001", "call_1", "a.txt\u2029b.txt\u0085c.txt"),
        assistant("a0000002", "t0000001", "done: 日本語"),
        _dump(
            {
                "type": "label",
                "id": "l0000001",
                "parentId": "a0000002",
                "timestamp": TS,
                "targetId": "u0000001",
                "label": "start",
            }
        ),
        user("u0000002", "a0000002", "now a branch"),
        _dump(
            {
                "type": "branch_summary",
                "id": "b0000001",
                "parentId": "u0000001",
                "timestamp": TS,
                "fromId": "a0000002",
                "summary": "we listed files",
            }
        ),
        _dump(
            {
                "type": "compaction",
                "id": "c0000001",
                "parentId": "b0000001",
                "timestamp": TS,
                "summary": "compacted",
                "firstKeptEntryId": "u0000001",
                "tokensBefore": 1000,
            }
        ),
        _dump(
            {
                "type": "custom",
                "id": "x0000001",
                "parentId": "c0000001",
                "timestamp": TS,
                "customType": "ext",
                "data": {"k": [1, 2, 3]},
            }
        ),
        _dump(
            {
                "type": "custom_message",
                "id": "x0000002",
                "parentId": "x0000001",
                "timestamp": TS,
                "customType": "ext",
                "content": "note",
                "display": True,
            }
        ),
        _dump(
            {
                "type": "session_info",
                "id": "s0000001",
                "parentId": "x0000002",
                "timestamp": TS,
                "name": "robustness",
            }
        ),
        user("u0000003", "s0000001", "continue"),
    ]
    return "\n".join(lines) + "\n"


def v1_session() -> str:
    """A v1 session (no ids) with a compaction by index."""

    def msg(role: str, text: str) -> str:
        return _dump(
            {
                "type": "message",
                "timestamp": TS,
                "message": {
                    "role": role,
                    "content": [{"type": "text", "text": text}],
                    "timestamp": 1,
                },
            }
        )

    lines = [
        _dump(
            {
                "type": "session",
                "id": "ffae836b-9420-4060-ac13-7745215f90ff",
                "timestamp": TS,
                "cwd": "/p",
                "provider": "anthropic",
                "modelId": "claude-opus-4-5",
                "thinkingLevel": "off",
            }
        ),
        msg("user", "hi"),
        msg("user", "more"),
        _dump(
            {
                "type": "compaction",
                "timestamp": TS,
                "summary": "s",
                "firstKeptEntryIndex": 2,
                "tokensBefore": 5,
            }
        ),
        msg("user", "after"),
    ]
    return "\n".join(lines) + "\n"


def v2_session() -> str:
    """A v2 session with a hookMessage."""
    lines = [
        header(2),
        user("u1", None, "hi"),
        _dump(
            {
                "type": "message",
                "id": "h1",
                "parentId": "u1",
                "timestamp": TS,
                "message": {
                    "role": "hookMessage",
                    "customType": "x",
                    "content": "c",
                    "display": True,
                    "timestamp": 1,
                },
            }
        ),
        user("u2", "h1", "bye"),
    ]
    return "\n".join(lines) + "\n"


def book_session() -> str:
    path = ROOT / "tests" / "data" / "book-valid.jsonl"
    if path.is_file():
        return path.read_text(encoding="utf-8")
    return _dump({"type": "session_header", "version": 1, "createdAt": TS, "cwd": "/"}) + "\n"


SEEDS: dict[str, Callable[[], str]] = {
    "v3": v3_session,
    "v1": v1_session,
    "v2": v2_session,
    "book": book_session,
}


def seed_texts() -> dict[str, bytes]:
    """The hand-written seeds as bytes."""
    return {name: make().encode("utf-8") for name, make in SEEDS.items()}


def fixture_files() -> list[Path]:
    """The shared real fixtures, when present (else an empty list)."""
    if not FIXTURES.is_dir():
        return []
    return sorted(FIXTURES.glob("*.jsonl"))


@functools.lru_cache(maxsize=16)
def _fixture_lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def fixture_window(path: Path, rng: random.Random, max_lines: int = 60) -> bytes:
    """The header plus a random window of a fixture (keeps mutation cases small)."""
    lines = _fixture_lines(path)
    if len(lines) <= max_lines:
        return b"\n".join(lines)
    start = rng.randrange(1, len(lines) - max_lines)
    return b"\n".join([lines[0], *lines[start : start + max_lines - 1]]) + b"\n"


# -- mutators ---------------------------------------------------------------------------

Mutator = Callable[[bytes, random.Random], bytes]
_STRING_BYTES = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NUMBER_BYTES = re.compile(rb"(?<=[:\[,])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_ID_VALUE = re.compile(rb'"(?:id|parentId|targetId|fromId|firstKeptEntryId|toolCallId)":"([^"]*)"')


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _join(lines: list[bytes]) -> bytes:
    return b"\n".join(lines)


def _pos(data: bytes, rng: random.Random) -> int:
    return rng.randrange(len(data) + 1)


def _inside_string(data: bytes, rng: random.Random) -> int:
    spans = [m.span() for m in _STRING_BYTES.finditer(data)]
    if not spans:
        return _pos(data, rng)
    start, end = rng.choice(spans)
    return rng.randrange(start + 1, max(start + 2, end))


def _insert(data: bytes, at: int, piece: bytes) -> bytes:
    return data[:at] + piece + data[at:]


def byte_flip(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return b"\xff"
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def byte_insert(data: bytes, rng: random.Random) -> bytes:
    piece = bytes(
        rng.choice(b'{}[]",:\\0123456789eE-+. \t\r\nntfalsu\x00\xff')
        for _ in range(rng.randint(1, 3))
    )
    return _insert(data, _pos(data, rng), piece)


def byte_delete(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + data[i + rng.randint(1, 8) :]


def truncate(data: bytes, rng: random.Random) -> bytes:
    """Cut the file anywhere (a crash while writing)."""
    return data[: _pos(data, rng)]


def cut_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    return _join(lines)


def duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return _join(lines)


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return _join(lines)


def delete_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    if len(lines) > 1:
        del lines[rng.randrange(len(lines))]
    return _join(lines)


def blank_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    lines.insert(rng.randrange(len(lines) + 1), rng.choice([b"", b"   ", b"\t", b"\xc2\xa0"]))
    return _join(lines)


_UNICODE = [
    "\u2028",
    "\u2029",
    "\u0085",
    "🚀",
    "👩‍👩‍👧",
    "\u00e9",
    "日本",
    "\ufeff",
    "\u200b",
    "\U0010ffff",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1d",
    "\x1e",
]


def raw_unicode(data: bytes, rng: random.Random) -> bytes:
    """Raw U+2028/U+2029/U+0085, emoji and other splitlines-breakers inside a string."""
    piece = "".join(rng.choice(_UNICODE) for _ in range(rng.randint(1, 4))).encode("utf-8")
    at = _inside_string(data, rng) if rng.random() < 0.8 else _pos(data, rng)
    return _insert(data, at, piece)


def lone_surrogate_escape(data: bytes, rng: random.Random) -> bytes:
    piece = rng.choice(
        [b"\\ud800", b"\\udfff", b"\\udc00x", b"\\ud83d", b"\\ude00\\ud83d", b"\\uDBFF"]
    )
    return _insert(data, _inside_string(data, rng), piece)


_NUMBERS = [
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e400",
    b"-1e400",
    b"1e-400",
    b"-0",
    b"01",
    b"123456789012345678901234567890",
    b"1.",
    b".5",
    b"+1",
    b"0x10",
    b"1e",
    b"2e308",
]


def odd_numbers(data: bytes, rng: random.Random) -> bytes:
    spans = [m.span() for m in _NUMBER_BYTES.finditer(data)]
    piece = rng.choice(_NUMBERS)
    if not spans:
        return _insert(data, _pos(data, rng), piece)
    start, end = rng.choice(spans)
    return data[:start] + piece + data[end:]


def duplicate_keys(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    if lines[i].startswith(b"{"):
        key = rng.choice(
            [
                b'"id":"dup00001",',
                b'"type":"message",',
                b'"parentId":null,',
                b'"type":7,',
                b'"version":3,',
                b'"message":{},',
            ]
        )
        at = 1 if rng.random() < 0.5 else max(1, len(lines[i]) - 1)
        if at > 1:
            key = b"," + key[:-1]
        lines[i] = _insert(lines[i], at, key)
    return _join(lines)


def nul_bytes(data: bytes, rng: random.Random) -> bytes:
    return _insert(
        data, _pos(data, rng) if rng.random() < 0.5 else _inside_string(data, rng), b"\x00"
    )


def bom(data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.6:
        return b"\xef\xbb\xbf" + data
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines[i] = b"\xef\xbb\xbf" + lines[i]
    return _join(lines)


def crlf(data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines[i] += b"\r"
    return _join(lines)


def lone_cr(data: bytes, rng: random.Random) -> bytes:
    r = rng.random()
    if r < 0.3:
        return data.replace(b"\n", b"\r")
    if r < 0.6:
        return _insert(data, _inside_string(data, rng), b"\r")
    return _insert(data, _pos(data, rng), b"\r")


def invalid_utf8(data: bytes, rng: random.Random) -> bytes:
    piece = rng.choice(
        [
            b"\xff",
            b"\xc3",
            b"\xc0\xaf",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xe2\x82",
            b"\x80",
            b"\xf0\x9f\x9a",
        ]
    )
    return _insert(
        data, _inside_string(data, rng) if rng.random() < 0.7 else _pos(data, rng), piece
    )


def break_links(data: bytes, rng: random.Random) -> bytes:
    """Point an id reference somewhere else: a missing id, a later entry, itself, null."""
    matches = list(_ID_VALUE.finditer(data))
    if not matches:
        return data
    m = rng.choice(matches)
    ids = [x.group(1) for x in matches]
    new = rng.choice(
        [b"ghost", b"", rng.choice(ids), m.group(1), b"root", b"\\u0000", "é🚀".encode()]
    )
    return data[: m.start(1)] + new + data[m.end(1) :]


def retype(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    new = rng.choice(
        [
            b'"type":"weird"',
            b'"type":null',
            b'"type":["message"]',
            b'"type":"session"',
            b'"type":"session_header"',
            b'"type":"compaction"',
            b'"type":"label"',
        ]
    )
    lines[i] = re.sub(rb'"type":"[^"]*"', new, lines[i], count=1)
    return _join(lines)


def reversion(data: bytes, rng: random.Random) -> bytes:
    new = rng.choice(
        [
            b'"version":0',
            b'"version":4',
            b'"version":"3"',
            b'"version":true',
            b'"version":null',
            b'"version":1.5',
            b'"version":1e400',
            b'"version":-1',
            b'"version":1',
            b'"version":2',
        ]
    )
    return re.sub(rb'"version":[^,}]*', new, data, count=1)


def deep_value(data: bytes, rng: random.Random, depth: int = 2000) -> bytes:
    """Replace a value by a deeply nested array (or a whole line by one)."""
    nest = b"[" * depth + b"]" * depth
    if rng.random() < 0.5:
        lines = _lines(data)
        lines.insert(rng.randrange(len(lines) + 1), nest)
        return _join(lines)
    spans = [m.span() for m in _NUMBER_BYTES.finditer(data)]
    if not spans:
        return data + b"\n" + nest
    start, end = rng.choice(spans)
    return data[:start] + nest + data[end:]


_ANY_VALUE = re.compile(
    rb'"(?:id|parentId|type|role|version|stopReason|content|targetId|fromId|label|name|'
    rb"firstKeptEntryId|firstKeptEntryIndex|toolCallId|timestamp|usage|cwd|parentSession|"
    rb'customType|summary|thinkingLevel|provider|modelId)":'
)


def deep_field(data: bytes, rng: random.Random) -> bytes:
    """Replace the value of a well-known member by arrays/objects nested 900-3000 deep."""
    matches = list(_ANY_VALUE.finditer(data))
    if not matches:
        return data
    m = rng.choice(matches)
    depth = rng.choice([900, 1000, 1100, 3000])
    if rng.random() < 0.5:
        nest = b"[" * depth + b"]" * depth
    else:
        nest = b'{"a":' * depth + b"1" + b"}" * depth
    start = m.end()
    end = start
    if end < len(data) and data[end : end + 1] == b'"':
        s = _STRING_BYTES.match(data, end)
        end = s.end() if s else end + 1
    else:
        while end < len(data) and data[end : end + 1] not in b",}\n":
            end += 1
    return data[:start] + nest + data[end:]


def chunk_shuffle(data: bytes, rng: random.Random) -> bytes:
    """Copy a random chunk of the file somewhere else (a torn write)."""
    if len(data) < 2:
        return data
    a = rng.randrange(len(data))
    b = min(len(data), a + rng.randint(1, 200))
    return _insert(data, _pos(data, rng), data[a:b])


MUTATORS: dict[str, Mutator] = {
    "byte_flip": byte_flip,
    "byte_insert": byte_insert,
    "byte_delete": byte_delete,
    "truncate": truncate,
    "cut_line": cut_line,
    "duplicate_line": duplicate_line,
    "swap_lines": swap_lines,
    "delete_line": delete_line,
    "blank_lines": blank_lines,
    "raw_unicode": raw_unicode,
    "lone_surrogate_escape": lone_surrogate_escape,
    "odd_numbers": odd_numbers,
    "duplicate_keys": duplicate_keys,
    "nul_bytes": nul_bytes,
    "bom": bom,
    "crlf": crlf,
    "lone_cr": lone_cr,
    "invalid_utf8": invalid_utf8,
    "break_links": break_links,
    "retype": retype,
    "reversion": reversion,
    "deep_value": deep_value,
    "deep_field": deep_field,
    "chunk_shuffle": chunk_shuffle,
}


def mutate(data: bytes, rng: random.Random, rounds: int | None = None) -> tuple[bytes, list[str]]:
    """Apply 1-4 random mutators; return the result and their names."""
    names = []
    for _ in range(rounds if rounds is not None else rng.randint(1, 4)):
        name = rng.choice(list(MUTATORS))
        data = MUTATORS[name](data, rng)
        names.append(name)
    return data, names


def cases(rng: random.Random, count: int, use_fixtures: bool = True) -> Iterator[tuple[str, bytes]]:
    """``count`` mutated sessions from the seeds (and fixture windows when present)."""
    seeds = seed_texts()
    fixtures = fixture_files() if use_fixtures else []
    for n in range(count):
        if fixtures and rng.random() < 0.4:
            path = rng.choice(fixtures)
            base, origin = fixture_window(path, rng), path.stem
        else:
            origin = rng.choice(list(seeds))
            base = seeds[origin]
        data, names = mutate(base, rng)
        yield f"{n}:{origin}:{'+'.join(names)}", data


def decode(data: bytes) -> str:
    """Bytes as the server would get them from an editor (invalid UTF-8 replaced)."""
    return data.decode("utf-8", "replace")


# -- pathological generators ---------------------------------------------------------------


def deep_nesting(depth: int = 20_000, closed: bool = True) -> str:
    """A session whose second line is an array nested ``depth`` deep."""
    nest = "[" * depth + ("]" * depth if closed else "]" * (depth - 1))
    obj = '{"type":"custom","id":"d1","parentId":null,"timestamp":"' + TS
    obj += '","customType":"deep","data":' + nest + "}"
    return "\n".join([header(3), nest, obj, user("u1", "d1")]) + "\n"


def huge_line(size: int = 50 * 1024 * 1024, ascii_only: bool = True) -> str:
    """A session with one user message carrying ``size`` bytes of text (a base64 image)."""
    fill = "A" * size if ascii_only else ("é🚀" * (size // 6 + 1))[: size // 3]
    line = _dump(
        {
            "type": "message",
            "id": "big00001",
            "parentId": None,
            "timestamp": TS,
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "see image"},
                    {"type": "image", "data": fill, "mimeType": "image/png"},
                ],
                "timestamp": 1,
            },
        }
    )
    return "\n".join([header(3), line, user("u1", "big00001", "after")]) + "\n"


def parent_cycle(n: int = 5000) -> str:
    """``n`` entries whose parents form one cycle (plus a self-parent)."""
    lines = [header(3)]
    for i in range(n):
        lines.append(user(f"c{i:07d}", f"c{(i - 1) % n:07d}", f"m{i}"))
    lines.append(user("self0001", "self0001", "me"))
    return "\n".join(lines) + "\n"


def chain(n: int = 100_000) -> str:
    """A linear chain of ``n`` entries."""
    lines = [header(3)]
    parent = None
    for i in range(n):
        ident = f"{i:08x}"
        lines.append(user(ident, parent, "x"))
        parent = ident
    return "\n".join(lines) + "\n"


def wide_branches(n: int = 2000) -> str:
    """One root with ``n`` children (a very wide branch point)."""
    lines = [header(3), user("root0001", None, "root")]
    lines += [user(f"k{i:07d}", "root0001", f"b{i}") for i in range(n)]
    return "\n".join(lines) + "\n"


PATHOLOGICAL: dict[str, Callable[[], str]] = {
    "deep_nesting": deep_nesting,
    "deep_nesting_unclosed": lambda: deep_nesting(closed=False),
    "parent_cycle": parent_cycle,
    "chain": chain,
    "wide_branches": wide_branches,
}
