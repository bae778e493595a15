#!/usr/bin/env node
// pi16_stats.mjs — pi 1.6's own session statistics, for conformance tests of `pi-lsp stats`.
// Needs Node 22+ (pi 1.6 imports globSync from node:fs) and @earendil-works/pi-coding-agent
// 1.6 in the node_modules directory named by $PI_LSP_PI16_MODULES.
//
// Subcommands (each prints one JSON document on stdout):
//
//   stats FILE...
//     For each FILE: SessionManager.open() on a temporary copy (pi rewrites a file it
//     migrates), then pi's own AgentSession.prototype.getSessionStats, called with a
//     receiver that holds only that SessionManager (getSessionStats reads nothing else but
//     getContextUsage(), which needs a model and is answered with undefined here), and
//     pi's getUsageCostBreakdown(entries). Output:
//     { pi_version, files: [ { path, stats: {userMessages, assistantMessages, toolCalls,
//       toolResults, totalMessages, tokens: {input, output, cacheRead, cacheWrite, total},
//       cost}, breakdown: [{key, cost, tokens}] } ] }
//
//   write OUTDIR
//     Writes a session with pi 1.6's SessionManager that holds every kind of usage pi
//     counts (assistant messages, an aborted turn, toolResult usage, `usage` entries, a
//     compaction and a branch summary with usage), a model change, a system message, a
//     branch and a label; then a fork of a path that leaves the active leaf
//     (createBranchedSession) and a full copy (SessionManager.forkFrom, what /clone does
//     across folders). Output: { pi_version, session, fork, clone, forkedAt }
//
// Exit status 0 with a JSON document; 2 with {"oracle_error"} when pi cannot be loaded.

import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const PACKAGE = "@earendil-works/pi-coding-agent";

function fail(message) {
	process.stdout.write(`${JSON.stringify({ oracle_error: message })}\n`);
	process.exit(2);
}

async function loadPi() {
	const modules = process.env.PI_LSP_PI16_MODULES;
	if (!modules) fail("set PI_LSP_PI16_MODULES to a node_modules directory holding pi 1.6");
	const pkgDir = join(resolve(modules), PACKAGE);
	let pkg;
	try {
		pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
	} catch {
		fail(`cannot find ${PACKAGE} in ${modules}`);
	}
	const load = (rel) => import(pathToFileURL(join(pkgDir, rel)).href);
	const index = await load("dist/index.js");
	const totals = await load("dist/core/usage-totals.js");
	return { version: pkg.version, ...index, getUsageCostBreakdown: totals.getUsageCostBreakdown };
}

function statsOf(pi, file) {
	const dir = mkdtempSync(join(tmpdir(), "pi16-stats-"));
	try {
		const copy = join(dir, basename(file));
		copyFileSync(file, copy);
		const sessionManager = pi.SessionManager.open(copy, dir);
		const receiver = {
			sessionManager,
			sessionFile: file,
			sessionId: sessionManager.getSessionId(),
			getContextUsage: () => undefined,
		};
		const stats = pi.AgentSession.prototype.getSessionStats.call(receiver);
		delete stats.contextUsage;
		const breakdown = pi.getUsageCostBreakdown(sessionManager.getEntries());
		return { path: file, stats, breakdown };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

// A small deterministic generator, so that every run writes the same numbers.
function lcg(seed) {
	let s = seed >>> 0;
	return () => {
		s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
		return s / 2 ** 32;
	};
}

function usageFrom(rand, scale = 1) {
	const input = Math.floor(rand() * 4000 * scale) + 1;
	const output = Math.floor(rand() * 900 * scale) + 1;
	const cacheRead = Math.floor(rand() * 20000 * scale);
	const cacheWrite = Math.floor(rand() * 3000 * scale);
	const cost = {
		input: input * 3e-6,
		output: output * 15e-6,
		cacheRead: cacheRead * 3e-7,
		cacheWrite: cacheWrite * 3.75e-6,
	};
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

const model = { provider: "anthropic", id: "claude-sonnet-4-5" };

function assistant(rand, text, calls = [], extra = {}) {
	return {
		role: "assistant",
		content: [{ type: "text", text }, ...calls.map((id) => ({ type: "toolCall", id, name: "read", arguments: { path: `${id}.ts` } }))],
		api: "anthropic-messages",
		provider: model.provider,
		model: model.id,
		usage: usageFrom(rand),
		stopReason: calls.length ? "toolUse" : "stop",
		timestamp: Date.now(),
		...extra,
	};
}

function toolResult(rand, id, withUsage) {
	return {
		role: "toolResult",
		toolCallId: id,
		toolName: "read",
		content: [{ type: "text", text: `contents of ${id}.ts` }],
		isError: false,
		timestamp: Date.now(),
		...(withUsage ? { usage: usageFrom(rand, 0.1) } : {}),
	};
}

function user(text) {
	return { role: "user", content: [{ type: "text", text }], timestamp: Date.now() };
}

async function cmdWrite(pi, [outDir]) {
	if (!outDir) fail("usage: write OUTDIR");
	const dir = resolve(outDir);
	const rand = lcg(15);
	const sm = pi.SessionManager.create("/home/user/project", dir);
	sm.appendMessage({ role: "system", content: "", sections: { base: "You are pi." }, toolsAdded: ["read"] });
	let call = 0;
	const turn = (text, calls, usageOnResults = false) => {
		sm.appendMessage(user(text));
		const ids = Array.from({ length: calls }, () => `call_${++call}`);
		const a = sm.appendMessage(assistant(rand, `working on ${text}`, ids));
		ids.forEach((id, n) => sm.appendMessage(toolResult(rand, id, usageOnResults && n === 0)));
		if (calls) sm.appendMessage(assistant(rand, `done with ${text}`));
		return a;
	};
	turn("read the readme", 2);
	const branchFrom = turn("fix the parser", 1, true);
	sm.appendUsage("web_search", "anthropic", "claude-sonnet-4-5", usageFrom(rand, 0.2));
	turn("add a test", 2);
	sm.appendMessage(assistant(rand, "partial", [], { stopReason: "aborted", usage: usageFrom(rand, 0.05) }));
	sm.appendModelChange("openai", "gpt-5");
	Object.assign(model, { provider: "openai", id: "gpt-5" });
	const kept = turn("refactor the cli", 1);
	sm.appendCompaction("summary of the work so far", kept, 42000, { readFiles: [], modifiedFiles: [] }, false, usageFrom(rand, 0.5));
	turn("write the docs", 1);
	sm.appendLabelChange(kept, "refactor");
	// leave the path: an abandoned branch with its own summary usage
	sm.branchWithSummary(branchFrom, "tried another parser", { readFiles: [] }, false, usageFrom(rand, 0.3));
	turn("try a hand-written parser", 2, true);
	const forkedAt = sm.getLeafId();
	sm.branch(kept);
	turn("finish the docs", 1);
	const session = sm.getSessionFile();
	const forkManager = pi.SessionManager.open(session, dir);
	const fork = forkManager.createBranchedSession(forkedAt);
	const clone = pi.SessionManager.forkFrom(session, "/home/user/other", join(dir, "other")).getSessionFile();
	return { pi_version: pi.version, session, fork, clone, forkedAt };
}

async function cmdStats(pi, files) {
	if (!files.length) fail("usage: stats FILE...");
	return { pi_version: pi.version, files: files.map((f) => statsOf(pi, resolve(f))) };
}

const COMMANDS = { stats: cmdStats, write: cmdWrite };

const [cmd, ...rest] = process.argv.slice(2);
if (!COMMANDS[cmd]) fail(`usage: pi16_stats.mjs {${Object.keys(COMMANDS).join("|")}} ...`);
const pi = await loadPi();
process.stdout.write(`${JSON.stringify(await COMMANDS[cmd](pi, rest))}\n`);
