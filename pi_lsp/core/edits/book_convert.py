"""Conversion of a book-dialect session file (``session_header``) to a pi v3 session.

Every line of the book file becomes one line of the pi file, in the same order, with
the same ``id`` and ``parentId``, so the tree, the order and the leaf (the last line)
are preserved. The only exception: the ``tool_result`` content blocks of a
``user_message`` that no earlier tool result answers become ``toolResult`` message
entries of their own, inserted just before that user message (pi keeps tool results in
their own messages); when nothing else is left of the user message, the last of them
takes its id.

Mapping (``docs/book-dialect.md`` has the full table):

- header → ``{"type":"session","version":3,"id",...}``; ``createdAt`` → ``timestamp``;
  ``provider``/``model``/``thinkingLevel`` stay on the header as pi's ``provider``/
  ``modelId``/``thinkingLevel``. The id is the one in a file name of pi's form, else one derived
  from the text (the same input always gives the same output).
- ``user_message`` / ``assistant_message`` / ``tool_result`` → ``message`` entries with
  pi's ``user`` / ``assistant`` / ``toolResult`` AgentMessages; usage fields renamed,
  ``cost`` → ``usage.cost.total``, ``tool_use`` → ``toolCall``, ``thinking`` blocks →
  ``thinking`` with ``thinkingSignature``, image ``source`` → ``data``/``mimeType``.
- ``thinking`` entries: their blocks are folded into the assistant_message they precede
  (their child, else the next sibling); the entry becomes a ``thinking_level_change``
  (it records the level the model thought at) or, without a level, a placeholder.
- ``tool_call`` entries: folded into the nearest assistant_message above them when no
  ``tool_use`` on the path has their id; the entry becomes a placeholder.
- ``compaction`` → ``firstKeptEntryId`` = the first entry after the summarized ones on
  its path (its own id when nothing is kept), ``tokensBefore`` = the context size at the
  last assistant message before it; everything else goes into ``details``.
- ``branch_summary`` → ``fromId`` = ``branchRootId`` (else its parent, else ``"root"``);
  everything else goes into ``details``.
- Placeholders are ``custom`` entries (not in the model's context) with
  ``customType`` :data:`CUSTOM_TYPE` and ``data`` = the original fields.

What has no place in pi is listed in :attr:`Conversion.losses`.
"""

from __future__ import annotations

import bisect
import hashlib
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..checks import book
from ..checks.analysis import analyze
from ..entries.lines import Kind
from ..entries.memo import per_analysis
from ..entries.model import Analysis
from ..text.files import session_id_in_name
from ..text.jsontext import clip_json, stringify

CUSTOM_TYPE = "pi-lsp/book"
"""``customType`` of the placeholder entries that keep book entries pi has no type for."""

THINKING_LEVELS = frozenset({"off", "minimal", "low", "medium", "high", "xhigh"})

PROVIDER_APIS: dict[str, str] = {
    "anthropic": "anthropic-messages",
    "openai": "openai-responses",
    "azure-openai-responses": "azure-openai-responses",
    "openai-codex": "openai-codex-responses",
    "google": "google-generative-ai",
    "google-vertex": "google-vertex",
    "amazon-bedrock": "bedrock-converse-stream",
    "mistral": "mistral-conversations",
}
"""pi-ai's default wire API per provider (other providers: ``api`` is left out)."""

_MODEL_PROVIDERS = (
    ("claude", "anthropic"),
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("codex", "openai"),
    ("gemini", "google"),
    ("mistral", "mistral"),
    ("codestral", "mistral"),
    ("devstral", "mistral"),
    ("grok", "xai"),
    ("deepseek", "deepseek"),
)

_ENVELOPE = ("type", "id", "parentId", "timestamp")


def _text_of(value: Any) -> str:
    """A value in a message or a seed: as Python prints a scalar, a container as clipped
    JSON (any depth: a 1000-deep array has no Python repr)."""
    return clip_json(value) if isinstance(value, list | dict) else str(value)


def _is_ref(value: Any) -> bool:
    """True for a ``parentId`` that can name an entry (a string) or none (null)."""
    return value is None or isinstance(value, str)


class NotBookError(ValueError):
    """The text is not a book-dialect session file (no ``session_header`` header)."""


@dataclass(frozen=True, slots=True)
class Loss:
    """Something of the book file the pi file does not carry: where, and why."""

    line: int
    field: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.line + 1}: {self.field}: {self.reason}"


@dataclass(slots=True)
class Conversion:
    """The pi v3 text of a converted book file, its session id, and what was lost."""

    text: str
    session_id: str
    losses: list[Loss] = field(default_factory=list)


def convert_text(text: str, path: str | None = None) -> str:
    """The pi v3 session text for a book-dialect file (``pi-lsp migrate`` on such a file).

    Raises :class:`NotBookError` when ``text`` is not in the book dialect.
    """
    return convert(text, path).text


def convert(text: str, path: str | None = None, analysis: Analysis | None = None) -> Conversion:
    """Convert a whole book-dialect file; ``analysis`` is its analysis when already known.

    ``path`` is only used for the session id (the id in a file name of pi's form is kept).
    Raises :class:`NotBookError` when ``text`` is not in the book dialect.
    """
    a = analysis if analysis is not None else analyze(text, path)
    if a.fmt != "book" or a.header_line is None:
        raise NotBookError("not a book-dialect session file (no session_header header)")
    return _Converter(a, _session_id(text, path)).run()


@per_analysis
def conversion(a: Analysis) -> Conversion:
    """The conversion of a book-dialect document (once per analysis; see :func:`convert`)."""
    return convert(a.text.join(), a.path, a)


def _session_id(text: str, path: str | None) -> str:
    named = session_id_in_name(path) if path is not None else None
    if named is not None:
        return named
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"pi-lsp:book:{digest}"))


def _num(value: Any) -> int | float:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _millis(stamp: Any) -> int | None:
    """An ISO 8601 timestamp as Unix milliseconds (UTC when it has no zone), or None."""
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _path_str(path: tuple[str | int, ...]) -> str:
    out = ""
    for item in path:
        out += f"[{item}]" if isinstance(item, int) else (f".{item}" if out else item)
    return out


def _guess_provider(model: str) -> str | None:
    name = model.lower().rsplit("/", 1)[-1]
    for prefix, provider in _MODEL_PROVIDERS:
        if name.startswith(prefix):
            return provider
    return None


@dataclass(slots=True)
class _UserPlan:
    """How one user_message is emitted: split-out tool results, then what is left."""

    splits: list[tuple[str, dict[str, Any]]]
    content: list[dict[str, Any]]
    keep_user: bool


class _Converter:
    """One conversion run over an analysed book file."""

    def __init__(self, a: Analysis, session_id: str) -> None:
        self.a = a
        self.session_id = session_id
        self.losses: list[Loss] = []
        self.full: dict[int, dict[str, Any]] = {}
        self.header = self._obj(a.header_line) if a.header_line is not None else {}
        self.used_ids: set[str] = set(a.tree.ids)
        self.tool_names: dict[str, str] = {}
        self.nearest_assistant: dict[int, int] = {}
        self.thinking_into: dict[int, int] = {}
        self.folded_thinking: dict[int, list[dict[str, Any]]] = defaultdict(list)
        self.call_into: dict[int, int] = {}
        self.folded_calls: dict[int, list[dict[str, Any]]] = defaultdict(list)
        self.users: dict[int, _UserPlan] = {}
        self.first_id: dict[int, str] = {}

    # ------------------------------------------------------------------ planning

    def run(self) -> Conversion:
        """Plan the folds and splits, then emit every line."""
        self._index()
        self._plan_thinking()
        self._plan_tool_calls()
        self._plan_users()
        out = [stringify(self._header())]
        for line, info in enumerate(self.a.infos):
            if line == self.a.header_line or info.kind is Kind.BLANK:
                continue
            if info.kind is Kind.ENTRY:
                out.extend(stringify(entry) for entry in self._entry(line, self._obj(line)))
            else:
                out.append(self.a.lines[line])
                self._lose(line, (), "kept as is: not a book entry (pi skips such lines)")
        losses = sorted(self.losses, key=lambda loss: loss.line)
        return Conversion("\n".join(out) + "\n", self.session_id, losses)

    def _obj(self, line: int) -> dict[str, Any]:
        """The full parsed object of ``line`` (the analysis keeps huge lines slimmed)."""
        obj = self.full.get(line)
        if obj is None:
            value = self.a.value(line)
            obj = self.full[line] = value if isinstance(value, dict) else {}
        return obj

    def _index(self) -> None:
        """Tool names by call id, and the nearest assistant_message above every entry."""
        tree = self.a.tree
        for line in tree.entries:
            obj = self._obj(line)
            if obj.get("type") == "tool_call":
                ident, name = obj.get("toolCallId"), obj.get("toolName")
                if isinstance(ident, str) and isinstance(name, str):
                    self.tool_names.setdefault(ident, name)
            for link in book.field_links(obj, book.TOOL_USE_ID):
                name = obj["content"][link.path[1]].get("name")
                if isinstance(name, str):
                    self.tool_names[link.value] = name
        stack: list[tuple[int, int | None]] = [(root, None) for root in reversed(tree.roots)]
        while stack:
            node, above = stack.pop()
            if self._obj(node).get("type") == "assistant_message":
                above = node
            if above is not None:
                self.nearest_assistant[node] = above
            stack.extend((child, above) for child in reversed(tree.children.get(node, ())))

    def _plan_thinking(self) -> None:
        """Pair each thinking entry with the assistant_message it precedes."""
        tree = self.a.tree
        by_parent: dict[str | None, list[int]] = defaultdict(list)
        for line in tree.entries:
            obj = self._obj(line)
            if obj.get("type") == "assistant_message" and _is_ref(obj.get("parentId")):
                by_parent[obj.get("parentId")].append(line)
        for line in tree.entries:
            obj = self._obj(line)
            if obj.get("type") != "thinking":
                continue
            target = next(
                (
                    c
                    for c in tree.children.get(line, ())
                    if self._obj(c).get("type") == "assistant_message"
                ),
                None,
            )
            if target is None:
                parent = obj.get("parentId")
                siblings = by_parent.get(parent, []) if _is_ref(parent) else []
                after = bisect.bisect_right(siblings, line)
                target = siblings[after] if after < len(siblings) else None
            if target is None:
                continue  # nothing to fold into: the placeholder keeps the blocks
            blocks = self._thinking_blocks(line, obj.get("content"))
            self.thinking_into[line] = target
            self.folded_thinking[target].extend(blocks)

    def _plan_tool_calls(self) -> None:
        """Add a toolCall to the nearest assistant for tool_call entries without a tool_use."""
        uses = book.tool_uses(self.a)
        tree = self.a.tree
        for line in tree.entries:
            obj = self._obj(line)
            ident = obj.get("toolCallId")
            if obj.get("type") != "tool_call" or not isinstance(ident, str):
                continue
            if any(tree.is_ancestor(s, line) for s, _ in uses.get(ident, ())):
                continue
            target = self.nearest_assistant.get(line)
            if target is None:
                self._lose(
                    line,
                    ("toolCallId",),
                    "no tool_use with this id and no assistant_message above to add the call to",
                )
                continue
            self.call_into[line] = target
            calls = self.folded_calls[target]
            if all(c["id"] != ident for c in calls):
                args = obj.get("input")
                calls.append(
                    {
                        "type": "toolCall",
                        "id": ident,
                        "name": self.tool_names.get(ident, "unknown"),
                        "arguments": args if isinstance(args, dict) else {},
                    }
                )

    def _plan_users(self) -> None:
        """Split unanswered tool_result blocks of user messages into toolResult entries."""
        tree = self.a.tree
        answered: dict[str, list[int]] = defaultdict(list)
        for line in tree.entries:
            obj = self._obj(line)
            ident = obj.get("toolCallId")
            if obj.get("type") == "tool_result" and isinstance(ident, str):
                answered[ident].append(line)
        for line in tree.entries:
            obj = self._obj(line)
            if obj.get("type") != "user_message":
                continue
            blocks = self._blocks(line, ("content",), obj.get("content"))
            splits: list[dict[str, Any]] = []
            content: list[dict[str, Any]] = []
            seen: set[str] = set()
            for n, block in enumerate(blocks):
                where = ("content", n)
                if not isinstance(block, dict) or block.get("type") != "tool_result":
                    converted = self._user_block(line, where, block)
                    if converted is not None:
                        content.append(converted)
                    continue
                ident = str(block.get("toolUseId"))
                earlier = [
                    r for r in answered.get(ident, ()) if r != line and tree.is_ancestor(r, line)
                ]
                if ident in seen or earlier:
                    first = f"line {earlier[0] + 1}" if earlier else "this message"
                    self._lose(
                        line,
                        where,
                        f"dropped: a tool result for '{ident}' already answers this call ({first})",
                    )
                    continue
                seen.add(ident)
                splits.append(self._result_message(line, where, block, obj))
            for ident in seen:
                answered[ident].append(line)
            seed = _text_of(obj.get("id"))
            ids = [self._new_id(f"{seed}/{n}") for n in range(len(splits))]
            if splits and not content and isinstance(obj.get("id"), str):
                ids[-1] = obj["id"]  # nothing else left: the last tool result takes the id
                keep_user = False
            else:
                # a message of only echoed (answered) results becomes a placeholder
                keep_user = bool(splits or content or not blocks)
            self.users[line] = _UserPlan(list(zip(ids, splits, strict=True)), content, keep_user)
            self.first_id[line] = ids[0] if ids else _text_of(obj.get("id"))

    def _blocks(self, line: int, where: tuple[str | int, ...], value: Any) -> list[Any]:
        """``value`` when it is a list (of blocks), else none (a value there is listed lost)."""
        if isinstance(value, list):
            return value
        if value is not None:
            self._lose(line, where, "not a list of blocks: dropped")
        return []

    def _new_id(self, seed: str) -> str:
        n = 0
        while True:
            candidate = hashlib.sha1(f"{seed}#{n}".encode("utf-8", "surrogatepass")).hexdigest()[:8]
            if candidate not in self.used_ids:
                self.used_ids.add(candidate)
                return candidate
            n += 1

    def _lose(self, line: int, path: tuple[str | int, ...], reason: str) -> None:
        self.losses.append(Loss(line, _path_str(path) or "(line)", reason))

    @staticmethod
    def _leftovers(obj: dict[str, Any], used: tuple[str, ...]) -> dict[str, Any]:
        """The members of ``obj`` outside the envelope and ``used`` (a null ``modelId`` too)."""
        return {
            k: v
            for k, v in obj.items()
            if k not in used and k not in _ENVELOPE and not (k == "modelId" and v is None)
        }

    def _drop_rest(
        self,
        line: int,
        obj: dict[str, Any],
        used: tuple[str, ...],
        why: str,
        prefix: tuple[str | int, ...] = (),
    ) -> None:
        for key in self._leftovers(obj, used):
            self._lose(line, (*prefix, key), why)

    # ------------------------------------------------------------------ blocks

    def _text(self, block: dict[str, Any]) -> dict[str, Any]:
        text = block.get("text")
        return {"type": "text", "text": text if isinstance(text, str) else ""}

    def _image(
        self, line: int, where: tuple[str | int, ...], block: dict[str, Any]
    ) -> dict[str, Any] | None:
        source = block.get("source")
        if not isinstance(source, dict) or not isinstance(source.get("data"), str):
            self._lose(line, where, "image without base64 data: dropped")
            return None
        self._drop_rest(line, source, ("mediaType", "data"), "no pi field", (*where, "source"))
        media = source.get("mediaType")
        return {
            "type": "image",
            "data": source["data"],
            "mimeType": media if isinstance(media, str) else "image/png",
        }

    def _thinking(
        self, line: int, where: tuple[str | int, ...], block: dict[str, Any]
    ) -> dict[str, Any]:
        """A thinking block (the book's ``text``, else Anthropic's ``thinking``) in pi's shape."""
        used = ("text" if "text" in block else "thinking", "signature")
        self._drop_rest(line, block, used, "no pi field", where)
        text = block.get("text", block.get("thinking"))
        out: dict[str, Any] = {
            "type": "thinking",
            "thinking": text if isinstance(text, str) else "",
        }
        if isinstance(block.get("signature"), str):
            out["thinkingSignature"] = block["signature"]
        return out

    def _user_block(
        self, line: int, where: tuple[str | int, ...], block: Any
    ) -> dict[str, Any] | None:
        """A user (or tool result) content block in pi's shape, or None when dropped."""
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            self._drop_rest(line, block, ("text",), "no pi field", where)
            return self._text(block)
        if kind == "image":
            return self._image(line, where, block)
        self._lose(
            line,
            where,
            f"a {_text_of(kind or 'malformed')} block has no place in pi's user and "
            "tool result content: dropped",
        )
        return None

    def _assistant_blocks(self, line: int, blocks: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for n, block in enumerate(self._blocks(line, ("content",), blocks)):
            where = ("content", n)
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                self._drop_rest(line, block, ("text",), "no pi field", where)
                out.append(self._text(block))
            elif kind == "thinking":
                out.append(self._thinking(line, where, block))
            elif kind == "tool_use":
                self._drop_rest(line, block, ("name", "input"), "no pi field", where)
                args = block.get("input")
                out.append(
                    {
                        "type": "toolCall",
                        "id": block.get("id"),
                        "name": block.get("name"),
                        "arguments": args if isinstance(args, dict) else {},
                    }
                )
            else:
                self._lose(
                    line,
                    where,
                    f"a {_text_of(kind or 'malformed')} block has no place in pi's "
                    "assistant content: dropped",
                )
        return out

    def _thinking_blocks(self, line: int, blocks: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for n, block in enumerate(self._blocks(line, ("content",), blocks)):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind in ("thinking", "text"):
                out.append(self._thinking(line, ("content", n), block))
            else:
                self._lose(
                    line,
                    ("content", n),
                    f"a {_text_of(kind or 'malformed')} block in a thinking entry: dropped",
                )
        return out

    def _result_message(
        self, line: int, where: tuple[str | int, ...], block: dict[str, Any], entry: dict[str, Any]
    ) -> dict[str, Any]:
        """A user message's tool_result block as a toolResult message."""
        self._drop_rest(line, block, ("toolUseId", "content", "isError"), "no pi field", where)
        ident = block.get("toolUseId")
        content = block.get("content")
        message: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": ident,
            "toolName": self.tool_names.get(str(ident), "unknown"),
            "content": [
                c
                for n, b in enumerate(self._blocks(line, (*where, "content"), content))
                if (c := self._user_block(line, (*where, "content", n), b)) is not None
            ],
            "isError": block.get("isError") is True,
        }
        return self._stamp(message, entry)

    def _stamp(self, message: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
        millis = _millis(entry.get("timestamp"))
        if millis is not None:
            message["timestamp"] = millis
        return message

    # ------------------------------------------------------------------ lines

    def _header(self) -> dict[str, Any]:
        h = self.header
        out: dict[str, Any] = {"type": "session", "version": 3, "id": self.session_id}
        out["timestamp"] = h.get("createdAt") if isinstance(h.get("createdAt"), str) else ""
        if isinstance(h.get("cwd"), str):
            out["cwd"] = h["cwd"]
        for src, dst in (
            ("provider", "provider"),
            ("model", "modelId"),
            ("thinkingLevel", "thinkingLevel"),
        ):
            if isinstance(h.get(src), str):
                out[dst] = h[src]
        hl = self.a.header_line
        assert hl is not None
        used = ("version", "createdAt", "cwd", "provider", "model", "thinkingLevel")
        self._drop_rest(hl, h, used, "no pi header field")
        return out

    def _envelope(self, obj: dict[str, Any], kind: str) -> dict[str, Any]:
        out: dict[str, Any] = {"type": kind}
        for key in ("id", "parentId", "timestamp"):
            if key in obj:
                out[key] = obj[key]
        return out

    def _entry(self, line: int, obj: dict[str, Any]) -> list[dict[str, Any]]:
        kind = obj.get("type")
        if kind == "user_message":
            return self._user(line, obj)
        if kind == "assistant_message":
            return [self._assistant(line, obj)]
        if kind == "tool_result":
            return [self._tool_result(line, obj)]
        if kind == "compaction":
            return [self._compaction(line, obj)]
        if kind == "branch_summary":
            return [self._branch_summary(obj)]
        if kind == "thinking":
            return [self._thinking_entry(line, obj)]
        if kind == "tool_call":
            return [self._placeholder(obj, self.call_into.get(line), False)]
        return [self._placeholder(obj, None, False)]

    def _placeholder(
        self, obj: dict[str, Any], folded_into: int | None, without_content: bool
    ) -> dict[str, Any]:
        out = self._envelope(obj, "custom")
        data = {k: v for k, v in obj.items() if k not in ("id", "parentId", "timestamp")}
        if without_content:
            data.pop("content", None)
        if folded_into is not None:
            data["foldedInto"] = self._obj(folded_into).get("id")
        out["customType"] = CUSTOM_TYPE
        out["data"] = data
        return out

    def _user(self, line: int, obj: dict[str, Any]) -> list[dict[str, Any]]:
        plan = self.users[line]
        if not plan.keep_user and not plan.splits:
            return [self._placeholder(obj, None, False)]
        self._drop_rest(line, obj, ("content",), "no pi field for a user message")
        out: list[dict[str, Any]] = []
        parent = obj.get("parentId")
        for ident, message in plan.splits:
            entry = {"type": "message", "id": ident, "parentId": parent}
            if "timestamp" in obj:
                entry["timestamp"] = obj["timestamp"]
            entry["message"] = message
            out.append(entry)
            parent = ident
        if plan.keep_user:
            entry = self._envelope(obj, "message")
            if plan.splits:
                entry["parentId"] = parent
            entry["message"] = self._stamp({"role": "user", "content": plan.content}, obj)
            out.append(entry)
        return out

    def _provider_model(self, obj: dict[str, Any]) -> tuple[str, str]:
        model = obj.get("modelId")
        if not isinstance(model, str):
            model = self.header.get("model")
        model = model if isinstance(model, str) else "unknown"
        provider = self.header.get("provider")
        if not isinstance(provider, str):
            provider = _guess_provider(model) or "unknown"
        return provider, model

    def _assistant(self, line: int, obj: dict[str, Any]) -> dict[str, Any]:
        content = self.folded_thinking.get(line, []) + self._assistant_blocks(
            line, obj.get("content")
        )
        have = {b["id"] for b in content if b["type"] == "toolCall"}
        content += [c for c in self.folded_calls.get(line, []) if c["id"] not in have]
        provider, model = self._provider_model(obj)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if provider in PROVIDER_APIS:
            message["api"] = PROVIDER_APIS[provider]
        message["provider"] = provider
        message["model"] = model
        message["usage"] = self._usage(line, obj)
        message["stopReason"] = (
            "toolUse" if any(b["type"] == "toolCall" for b in content) else "stop"
        )
        self._drop_rest(
            line,
            obj,
            ("content", "modelId", "usage", "cost"),
            "no pi field for an assistant message",
        )
        entry = self._envelope(obj, "message")
        entry["message"] = self._stamp(message, obj)
        return entry

    def _usage(self, line: int, obj: dict[str, Any]) -> dict[str, Any]:
        raw = obj.get("usage")
        raw = raw if isinstance(raw, dict) else {}
        names = (
            ("input", "inputTokens"),
            ("output", "outputTokens"),
            ("cacheRead", "cacheReadTokens"),
            ("cacheWrite", "cacheWriteTokens"),
        )
        usage: dict[str, Any] = {dst: _num(raw.get(src)) for dst, src in names}
        usage["totalTokens"] = sum(usage.values())
        usage["cost"] = {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "total": _num(obj.get("cost")),
        }
        self._drop_rest(line, raw, tuple(src for _, src in names), "no pi usage field", ("usage",))
        return usage

    def _tool_result(self, line: int, obj: dict[str, Any]) -> dict[str, Any]:
        ident = obj.get("toolCallId")
        name = obj.get("toolName")
        if not isinstance(name, str):
            name = self.tool_names.get(str(ident), "unknown")
        output = obj.get("output")
        if not isinstance(output, dict):
            if output is not None:
                self._lose(line, ("output",), "not an object: dropped")
            output = {}
        blocks = output.get("content")
        message: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": ident,
            "toolName": name,
            "content": [
                c
                for n, b in enumerate(self._blocks(line, ("output", "content"), blocks))
                if (c := self._user_block(line, ("output", "content", n), b)) is not None
            ],
        }
        if "details" in obj:
            message["details"] = obj["details"]
        message["isError"] = obj.get("isError") is True
        self._drop_rest(line, output, ("content",), "no pi field", ("output",))
        used = ("toolCallId", "toolName", "output", "details", "isError")
        self._drop_rest(line, obj, used, "no pi field for a tool result")
        entry = self._envelope(obj, "message")
        entry["message"] = self._stamp(message, obj)
        return entry

    def _compaction(self, line: int, obj: dict[str, Any]) -> dict[str, Any]:
        tree = self.a.tree
        path = tree.path_to(line)[:-1]
        summarized = obj.get("summarizedEntryIds")
        own = obj.get("id")
        kept: str | None = own if isinstance(own, str) else None
        if isinstance(summarized, list):
            wanted = {s for s in summarized if isinstance(s, str)}
            last = max((n for n, p in enumerate(path) if tree.id_of.get(p) in wanted), default=-1)
            if last + 1 < len(path):
                kept = self.first_id.get(path[last + 1], tree.id_of.get(path[last + 1]))
        tokens: int | float = 0
        for p in reversed(path):
            if self._obj(p).get("type") == "assistant_message":
                usage = self._usage_numbers(self._obj(p))
                tokens = sum(usage)
                break
        entry = self._envelope(obj, "compaction")
        summary = obj.get("summary")
        entry["summary"] = summary if isinstance(summary, str) else ""
        if kept is not None:
            entry["firstKeptEntryId"] = kept
        entry["tokensBefore"] = tokens
        details = self._leftovers(obj, ("summary",))
        if details:
            entry["details"] = details
        return entry

    def _usage_numbers(self, obj: dict[str, Any]) -> list[int | float]:
        raw = obj.get("usage")
        raw = raw if isinstance(raw, dict) else {}
        return [
            _num(raw.get(k))
            for k in ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")
        ]

    def _branch_summary(self, obj: dict[str, Any]) -> dict[str, Any]:
        root = obj.get("branchRootId")
        parent = obj.get("parentId")
        from_id = root if isinstance(root, str) else parent if isinstance(parent, str) else "root"
        entry = self._envelope(obj, "branch_summary")
        entry["fromId"] = from_id
        summary = obj.get("summary")
        entry["summary"] = summary if isinstance(summary, str) else ""
        details = self._leftovers(obj, ("summary", "branchRootId"))
        if details:
            entry["details"] = details
        return entry

    def _thinking_entry(self, line: int, obj: dict[str, Any]) -> dict[str, Any]:
        target = self.thinking_into.get(line)
        level = obj.get("thinkingLevel")
        if target is None or level not in THINKING_LEVELS:
            return self._placeholder(obj, target, target is not None)
        self._drop_rest(
            line, obj, ("content", "thinkingLevel"), "no pi field for a thinking level change"
        )
        entry = self._envelope(obj, "thinking_level_change")
        entry["thinkingLevel"] = level
        return entry
