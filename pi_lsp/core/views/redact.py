"""Masking credential-like strings (API keys, tokens, private keys) in text to be shared.

:func:`redact` keeps a short prefix of each secret so a reader still sees what it was
(``sk-ant-…``) and replaces the rest with ``[redacted]``. The patterns are those of the
common providers' keys and of ``name=value`` assignments whose name says secret; they are
a help for sharing, not a guarantee.
"""

from __future__ import annotations

import re

MASK = "[redacted]"

_KEYS = re.compile(
    r"""
    (?<![A-Za-z0-9_-])(?P<keep>sk-ant-|sk-proj-|sk-or-v1-|sk-|rk_live_|sk_live_|pk_live_|ghp_|gho_|ghs_|ghu_|
       github_pat_|glpat-|xox[abprs]-|AKIA|ASIA|AIza|hf_|npm_|pypi-|ya29\.)
    [A-Za-z0-9_\-.]{12,}
    | (?<![A-Za-z0-9_-])(?P<keep2>eyJ)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}
    """,
    re.VERBOSE,
)
"""Provider keys and tokens by their well-known prefixes, and JSON Web Tokens."""

_ASSIGNED = re.compile(
    r"""(?ix)
    (?P<name>\b(?:[\w-]*api[_-]?key|[\w-]*secret[\w-]*|[\w-]*token|[\w-]*password|passwd
               |authorization|credentials?)\b["']?\s*[:=]\s*["']?
       |\bBearer\s+|\bBasic\s+)
    (?P<value>(?=[^\s"'`,;]*[A-Za-z])[^\s"'`,;]{8,})
    """
)
"""A value assigned to a name that says it is secret, or an ``Authorization`` credential."""

_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.DOTALL
)


def redact(text: str) -> str:
    """``text`` with every credential-like string masked (a prefix of it kept)."""
    if not text:
        return text
    text = _PRIVATE_KEY.sub("-----BEGIN PRIVATE KEY----- " + MASK, text)
    text = _KEYS.sub(lambda m: (m.group("keep") or m.group("keep2") or "") + MASK, text)
    return _ASSIGNED.sub(lambda m: m.group("name") + MASK, text)
