#!/usr/bin/env node
// doctor_faults.mjs — sessions written by pi's own SessionManager (1.6: Node 22+), each
// with one fault of the kind that stops a session from resuming, planted as it happens.
// pi is imported by file URL from $PI_LSP_PI_MODULES ($PI_LSP_PI_PACKAGE names the
// package), as pi_oracle.mjs does; run it through pi_install.run_oracle(script=...).
//
//   plant KIND OUTDIR
//     Writes OUTDIR/--home-user-project--/<timestamp>_<id>.jsonl (pi's own folder and file
//     names for cwd /home/user/project) and prints
//     { pi_version, path, kind, ids: {name: id}, expect: {code, line} }
//     where expect is the diagnostic pi-lsp must report for the fault, at that 0-based line.
//
// Kinds (how the fault arises):
//   compaction-orphan    a compaction whose firstKeptEntryId is a tool result (the call
//                        before it is summarised away)
//   chained-compactions  the newest of two compactions keeps from a tool result written
//                        before the older one
//   edit-omits-call      a context edit (replacement null) on the assistant turn holding
//                        a call, whose result stays
//   interloper           an extension message (custom_message) appended between a turn's
//                        tool calls and their results
//   interloper-branch    the same on a branch that is not resumed (the leaf is elsewhere)
//   dropped-turn         an aborted assistant turn whose tool call got its result written
//   dangling-call        the run stopped after a turn with a tool call (no result)
//   torn-append          the last line is torn (no newline); pi appends the next entry
//                        onto it
//   no-header            the header line is gone
//   torn-header          the header line is cut off after its timestamp
//   duplicate-id         an entry on a second branch reuses the id of one on the first;
//                        its child names it
//   dangling-parent      an entry's parentId names no entry
//   cycle                the first entry's parentId names the last one

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

class UsageError extends Error {}

async function loadPi() {
	const modules = process.env.PI_LSP_PI_MODULES;
	const name = process.env.PI_LSP_PI_PACKAGE || "@earendil-works/pi-coding-agent";
	const dir = [modules, modules && join(modules, "node_modules")].find((d) => d && existsSync(join(d, name, "package.json")));
	if (!dir) throw new UsageError(`cannot find ${name}; set PI_LSP_PI_MODULES`);
	const pkg = JSON.parse(readFileSync(join(dir, name, "package.json"), "utf8"));
	const sm = await import(pathToFileURL(join(dir, name, "dist", "core", "session-manager.js")).href);
	return { sm, version: pkg.version };
}

const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const model = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" };

function writer(sm) {
	let t = Date.now();
	const ts = () => (t += 5);
	const user = (text) => sm.appendMessage({ role: "user", content: text, timestamp: ts() });
	const assistant = (text, calls = [], stopReason) =>
		sm.appendMessage({
			role: "assistant",
			content: [{ type: "text", text }, ...calls.map((id) => ({ type: "toolCall", id, name: "bash", arguments: { command: `echo ${id}` } }))],
			...model,
			usage,
			stopReason: stopReason ?? (calls.length ? "toolUse" : "stop"),
			timestamp: ts(),
		});
	const result = (id, text = `output of ${id}`) =>
		sm.appendMessage({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: ts() });
	return { user, assistant, result };
}

/** The lines of a file as pi splits them, and a rewrite helper. */
function lines(path) {
	return readFileSync(path, "utf8").split("\n");
}

function lineOf(path, id, last = false) {
	const all = lines(path);
	let found = -1;
	all.forEach((text, n) => {
		try {
			const e = JSON.parse(text);
			if (e && e.id === id && (last || found < 0)) found = n;
		} catch {
			// not an entry
		}
	});
	return found;
}

function rewrite(path, fn) {
	const all = lines(path);
	writeFileSync(path, fn(all).join("\n"));
}

function rewriteEntry(path, line, change) {
	rewrite(path, (all) => {
		const entry = JSON.parse(all[line]);
		change(entry);
		all[line] = JSON.stringify(entry);
		return all;
	});
}

async function plant(kind, outDir) {
	const pi = await loadPi();
	const { SessionManager } = pi.sm;
	const sm = SessionManager.create("/home/user/project", join(resolve(outDir), "--home-user-project--"));
	const w = writer(sm);
	const ids = {};
	let expect;
	const path = () => sm.getSessionFile();
	switch (kind) {
		case "compaction-orphan":
		case "chained-compactions": {
			ids.u1 = w.user("list the files");
			ids.a1 = w.assistant("Listing.", ["toolu_01"]);
			ids.r1 = w.result("toolu_01");
			ids.a2 = w.assistant("Two files.");
			if (kind === "chained-compactions") {
				ids.u2 = w.user("and the tests?");
				ids.a3 = w.assistant("Three tests.");
				ids.c1 = sm.appendCompaction("The user asked about files and tests.", ids.u2, 5000, {});
				ids.u3 = w.user("go on");
				ids.a4 = w.assistant("Done.");
			}
			ids.c = sm.appendCompaction("Listed the files.", ids.r1, 9000, {});
			ids.u4 = w.user("thanks");
			ids.a5 = w.assistant("You're welcome.");
			expect = { code: "PI423", line: lineOf(path(), ids.c) };
			break;
		}
		case "edit-omits-call": {
			ids.u1 = w.user("list the files");
			ids.a1 = w.assistant("Listing.", ["toolu_01"]);
			ids.r1 = w.result("toolu_01");
			ids.a2 = w.assistant("Two files.");
			ids.e = sm.appendContextEdit(ids.a1, null);
			ids.u2 = w.user("thanks");
			ids.a3 = w.assistant("You're welcome.");
			expect = { code: "PI423", line: lineOf(path(), ids.e) };
			break;
		}
		case "interloper":
		case "interloper-branch": {
			ids.u1 = w.user("list the files and the tests");
			ids.a1 = w.assistant("Listing.", ["toolu_01", "toolu_02"]);
			ids.x = sm.appendCustomMessageEntry("reminder", "Remember to run the linter.", true);
			ids.r1 = w.result("toolu_01");
			ids.r2 = w.result("toolu_02");
			ids.a2 = w.assistant("Two files, three tests.");
			ids.u2 = w.user("thanks");
			if (kind === "interloper-branch") {
				sm.branch(ids.u1);
				ids.u3 = w.user("no, only the tests");
				ids.a3 = w.assistant("Three tests.");
			}
			expect = { code: kind === "interloper" ? "PI423" : "PI425", line: lineOf(path(), ids.x) };
			break;
		}
		case "dropped-turn": {
			ids.u1 = w.user("list the files");
			ids.a1 = w.assistant("Listing.", ["toolu_01"], "aborted");
			ids.r1 = w.result("toolu_01");
			ids.u2 = w.user("try again");
			ids.a2 = w.assistant("Two files.");
			expect = { code: "PI423", line: lineOf(path(), ids.a1) };
			break;
		}
		case "dangling-call": {
			ids.u1 = w.user("list the files");
			ids.a1 = w.assistant("Listing.", ["toolu_01", "toolu_02"]);
			ids.r1 = w.result("toolu_01");
			expect = { code: "PI421", line: lineOf(path(), ids.a1) };
			break;
		}
		case "torn-append": {
			ids.u1 = w.user("list the files");
			ids.a1 = w.assistant("Two files.");
			ids.u2 = w.user("and the tests?");
			ids.a2 = w.assistant("Three tests, all passing.");
			const torn = lineOf(path(), ids.a2);
			// the write of a2 was cut off: no newline, half the line; pi (still running)
			// appends the next entry onto the fragment
			rewrite(path(), (all) => [...all.slice(0, torn), all[torn].slice(0, 60)]);
			ids.u3 = w.user("thanks");
			ids.a3 = w.assistant("You're welcome.");
			expect = { code: "PI001", line: torn };
			break;
		}
		case "no-header":
		case "torn-header": {
			ids.u1 = w.user("list the files");
			ids.a1 = w.assistant("Two files.");
			ids.u2 = w.user("thanks");
			if (kind === "no-header") {
				rewrite(path(), (all) => all.slice(1));
				expect = { code: "PI100", line: 0 };
			} else {
				rewrite(path(), (all) => [all[0].slice(0, all[0].indexOf('"cwd"')), ...all.slice(1)]);
				expect = { code: "PI100", line: 1 };
			}
			break;
		}
		case "duplicate-id": {
			ids.u1 = w.user("list the files");
			ids.a1 = w.assistant("Two files.");
			sm.branch(ids.u1);
			ids.a2 = w.assistant("Two files: a.txt and b.txt.");
			ids.u2 = w.user("thanks");
			const second = lineOf(path(), ids.a2);
			rewriteEntry(path(), second, (e) => {
				e.id = ids.a1;
			});
			rewriteEntry(path(), lineOf(path(), ids.u2), (e) => {
				e.parentId = ids.a1;
			});
			expect = { code: "PI401", line: second };
			break;
		}
		case "dangling-parent":
		case "cycle": {
			ids.u1 = w.user("list the files");
			ids.a1 = w.assistant("Two files.");
			ids.u2 = w.user("thanks");
			ids.a2 = w.assistant("You're welcome.");
			const dangling = kind === "dangling-parent";
			const line = lineOf(path(), dangling ? ids.u2 : ids.u1);
			rewriteEntry(path(), line, (e) => {
				e.parentId = dangling ? "deadbeef" : ids.a2;
			});
			expect = { code: dangling ? "PI400" : "PI402", line };
			break;
		}
		default:
			throw new UsageError(`unknown kind ${kind}`);
	}
	return { pi_version: pi.version, path: path(), kind, ids, expect };
}

async function main() {
	const [cmd, kind, outDir] = process.argv.slice(2);
	if (cmd !== "plant" || !kind || !outDir) throw new UsageError("usage: doctor_faults.mjs plant KIND OUTDIR");
	process.stdout.write(`${JSON.stringify(await plant(kind, outDir))}\n`);
}

main().catch((err) => {
	process.stdout.write(`${JSON.stringify({ oracle_error: err instanceof UsageError ? err.message : String(err?.stack ?? err) })}\n`);
	process.exitCode = 2;
});
