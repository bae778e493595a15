"""A small hand-written v3 session used by the read-only feature tests (core and LSP).

Line  what                                   parent
0     header (parentSession ../parent.jsonl)
1     model_change m1                        root
2     user u1, raw U+2028 in the content      m1
3     assistant a1 with toolCall call_1      u1     (branch point u1: a1, b1)
4     toolResult r1 for call_1               a1
5     label l1 "start" on u1                 r1
6     branch_summary b1 from l1              u1
7     user u2, emoji before the parentId     b1
8     compaction c1 keeping from u2          u2
9     session_info s1 "My session"           c1     (the leaf)
"""

from __future__ import annotations

HEADER = (
    '{"type":"session","version":3,"id":"sess-1","timestamp":"2026-01-01T00:00:00.000Z",'
    '"cwd":"/work","parentSession":"../parent.jsonl"}'
)
_TEMPLATES = [
    HEADER,
    '{"type":"model_change","id":"m1","parentId":null,"timestamp":"@T","provider":"anthropic","modelId":"claude"}',
    '{"type":"message","id":"u1","parentId":"m1","timestamp":"@T","message":{"role":"user","content":"hello\u2028world","timestamp":1}}',
    '{"type":"message","id":"a1","parentId":"u1","timestamp":"@T","message":{"role":"assistant","content":[{"type":"text","text":"reading"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"/src/a.ts"}}],"provider":"anthropic","model":"claude","usage":{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}},"stopReason":"toolUse","timestamp":2}}',
    '{"type":"message","id":"r1","parentId":"a1","timestamp":"@T","message":{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"file body"}],"isError":false,"timestamp":3}}',
    '{"type":"label","id":"l1","parentId":"r1","timestamp":"@T","targetId":"u1","label":"start"}',
    '{"type":"branch_summary","id":"b1","parentId":"u1","timestamp":"@T","fromId":"l1","summary":"tried reading"}',
    '{"type":"message","note":"🚀🚀","id":"u2","parentId":"b1","timestamp":"@T","message":{"role":"user","content":"again","timestamp":4}}',
    '{"type":"compaction","id":"c1","parentId":"u2","timestamp":"@T","summary":"we read a file","firstKeptEntryId":"u2","tokensBefore":100}',
    '{"type":"session_info","id":"s1","parentId":"c1","timestamp":"@T","name":"My session"}',
]
LINES = [t.replace("@T", f"2026-01-01T00:00:0{n}.000Z") for n, t in enumerate(_TEMPLATES)]
TEXT = "\n".join(LINES) + "\n"
PATH = "/tmp/pi-lsp-features/sessions/session.jsonl"
