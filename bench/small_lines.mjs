#!/usr/bin/env node
// small_lines.mjs — a session of many small lines, written by pi 1.6's own SessionManager.
//
//   PI_LSP_PI16_MODULES=/path/to/node_modules node bench/small_lines.mjs OUT.jsonl [TURNS]
//
// Real sessions are mostly short lines: a user prompt, an assistant message with a tool
// call, the tool's short result, the assistant's answer. This drives pi 1.6.0's
// SessionManager (@earendil-works/pi-coding-agent, dist/core/session-manager.js) through
// TURNS such turns (default 1,100: about 4,400 lines, 1.8 MB), with a model change and a
// session name once in a while, so pi itself chooses the ids, timestamps and key order.
// The text is drawn from a seeded generator: the shape is reproducible, the ids are pi's.
// Prints {"file", "lines", "bytes"} on stdout.

import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const PI_PACKAGE = "@earendil-works/pi-coding-agent";
const env = process.env.PI_LSP_PI16_MODULES;
const modules = [env, env && join(env, "node_modules")].find(
	(dir) => dir && existsSync(join(dir, PI_PACKAGE, "package.json")),
);
const [out, turnsArg] = process.argv.slice(2);
if (!modules || !out) {
	process.stderr.write("usage: PI_LSP_PI16_MODULES=DIR node bench/small_lines.mjs OUT.jsonl [TURNS]\n");
	process.exit(2);
}
const turns = Number(turnsArg ?? 1100);
const { SessionManager } = await import(
	pathToFileURL(join(modules, PI_PACKAGE, "dist", "core", "session-manager.js")).href
);

let seed = 1;
function random() {
	// mulberry32: a small seeded generator, so the same TURNS give the same text
	seed = (seed + 0x6d2b79f5) | 0;
	let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
	t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
	return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (items) => items[Math.floor(random() * items.length)];
const WORDS = "the a file test fix run check build error line path value read write list find make sure now then it this that".split(" ");
const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
const TOOLS = [
	["bash", () => ({ command: `${pick(["ls", "cat", "grep -n x", "git status", "npm test"])} ${pick(["src", "README.md", "."])}` })],
	["read", () => ({ path: `src/${pick(WORDS)}.ts` })],
	["edit", () => ({ path: `src/${pick(WORDS)}.ts`, oldText: words(3), newText: words(3) })],
];
const usage = (input, output) => ({
	input,
	output,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: input + output,
	cost: { input: input * 3e-6, output: output * 1.5e-5, cacheRead: 0, cacheWrite: 0, total: input * 3e-6 + output * 1.5e-5 },
});
const assistant = (content, stopReason, now) => ({
	role: "assistant",
	content,
	api: "anthropic-messages",
	provider: "anthropic",
	model: "claude-sonnet-4-5",
	usage: usage(100 + Math.floor(random() * 5000), 10 + Math.floor(random() * 300)),
	stopReason,
	timestamp: now,
});

const dir = mkdtempSync(join(tmpdir(), "pi-small-lines-"));
const sm = SessionManager.create("/home/user/project", dir);
let now = Date.UTC(2026, 10, 30, 9, 0, 0);
for (let turn = 0; turn < turns; turn++) {
	now += 1000 + Math.floor(random() * 60000);
	if (turn % 200 === 100) sm.appendModelChange("anthropic", pick(["claude-sonnet-4-5", "claude-opus-4-1"]));
	if (turn === 5) sm.appendSessionInfo(words(4));
	sm.appendMessage({ role: "user", content: words(3 + Math.floor(random() * 20)), timestamp: now });
	const [name, args] = pick(TOOLS);
	const callId = `toolu_${turn.toString(36).padStart(8, "0")}`;
	sm.appendMessage(
		assistant([{ type: "text", text: words(5) }, { type: "toolCall", id: callId, name, arguments: args() }], "toolUse", now + 1),
	);
	sm.appendMessage({
		role: "toolResult",
		toolCallId: callId,
		toolName: name,
		content: [{ type: "text", text: words(4 + Math.floor(random() * 40)) }],
		isError: random() < 0.05,
		timestamp: now + 2,
	});
	sm.appendMessage(assistant([{ type: "text", text: words(6 + Math.floor(random() * 30)) }], "stop", now + 3));
}
const written = sm.getSessionFile();
renameSync(written, resolve(out));
rmSync(dir, { recursive: true, force: true });
const text = readFileSync(resolve(out), "utf8");
process.stdout.write(
	`${JSON.stringify({ file: resolve(out), lines: text.split("\n").length - 1, bytes: statSync(resolve(out)).size })}\n`,
);
