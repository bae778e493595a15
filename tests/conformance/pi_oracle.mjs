#!/usr/bin/env node
// pi_oracle.mjs — a small CLI around pi's own session code, so that Python tests can
// compare pi-lsp with what pi itself does. Two pi releases are supported:
//   @mariozechner/pi-coding-agent@0.73.1   (Node 18+; reads a file with readFileSync +
//                                          parseSessionEntries: trim, split on "\n")
//   @earendil-works/pi-coding-agent@1.6.0  (Node 22+; reads a file with loadEntriesFromFile:
//                                          line by line, no trim; buildSessionProjection)
//
// Module resolution: ESM ignores NODE_PATH, so pi is imported by file URL from
// a node_modules directory given by $PI_LSP_PI_MODULES (a node_modules dir, or a
// prefix dir containing node_modules/), else
// ${XDG_CACHE_HOME:-~/.cache}/pi-lsp/npm/node_modules (where pi_install.py puts 0.73.1).
// The package in it is $PI_LSP_PI_PACKAGE when set, else whichever of the two is there.
//
// Subcommands (each prints exactly one JSON document on stdout):
//
//   load FILE [--leaf ID | --leaf-null]
//     The file is read as pi reads it (0.73.1: readFileSync(utf8) -> parseSessionEntries;
//     1.6: loadEntriesFromFile on a copy, since it appends a missing final newline) ->
//     migrateSessionEntries (in place) -> buildSessionContext (1.6: buildSessionProjection)
//     (entries without the header, leafId). Output:
//     { pi_version, pi_accepts,            // pi_accepts: first entry is {type:"session", id:string}
//                                          //   (else SessionManager.open() would start afresh)
//       version_before, version_after,     // header?.version ?? 1 before; header version after
//       entries: [ {line, type, id, parentId,              // one per entry pi kept, AFTER migration
//                   version?, parentSession?,              //   (header)
//                   firstKeptEntryId?, firstKeptEntryIndex?,  // (compaction)
//                   targetId?, label?,                     //   (label; label null when cleared)
//                   fromId?,                               //   (branch_summary)
//                   customType?,                           //   (custom, custom_message)
//                   role?, toolCallId?,                    //   (message; toolCallId for toolResult)
//                   json_type?} ],                         //   (a line that is JSON but no object)
//       leafId, leafLine,                  // the leaf buildSessionContext used
//       path_lines: [line, ...],           // root..leaf, as pi walks it
//       context: { messages: [ {role, line,                // line of the entry it came from
//                               summary?, tokensBefore?,   //   (compactionSummary)
//                               summary?, fromId?,         //   (branchSummary)
//                               customType?, display?,     //   (custom)
//                               toolCallId?, toolName?, isError?,   // (toolResult)
//                               stopReason?, toolCallIds?, //   (assistant)
//                               command?,                  //   (bashExecution)
//                               content_types,             // block types, "string", or null
//                               text_prefix,               // first text block / string content
//                               text} ],                   // convertToLlm + pi-ai contentText;
//                                                          //   null when convertToLlm drops it
//                  entry_lines: [line, ...],               // 1.6: buildContextEntries' entries
//                  thinkingLevel, model: {provider, modelId} | null },
//       sent: [ {role, line, toolCallId?, toolCallIds?, synthetic?} ]  // pi-ai transformMessages
//                                          //   over convertToLlm(context): what the provider gets
//       error? : {stage: "migrate"|"context", name, message} }   // pi threw (context: null);
//                                                                 // name "Hang" = parentId cycle
//     "line" is 0-based and counts "\n" only (pi splits on "\n"; "\r\n" works since
//     JSON.parse ignores the "\r"), measured in the original file even when it starts
//     with blank lines that trim() drops. Prefixes are the first 80 code points
//     (Python's s[:80]).
//
//   fork FILE (--at ID | --at-line N) --dir OUTDIR
//     SessionManager.open(FILE, OUTDIR).createBranchedSession(ID). pi rewrites a file it
//     migrates, so a v1/v2 FILE is opened from a temporary copy (FILE is never touched)
//     and the new header's parentSession is set back to FILE, as pi would have written.
//     --at-line names the entry by physical line (v1 ids are random per load). Output:
//     { pi_version, source, source_migrated_by_pi, at, path, written, leafId,
//       header: <entry summary>, entries: [<entry summary>...], context_length }
//     written=false when the path has no assistant message (pi defers the write; the
//     entries then come from memory, line = index). A pi exception: {..., error}.
//
//   write-sample OUTDIR [--cwd CWD] [--with-reset] [--seed N]
//     Writes a session with pi's SessionManager: tool calls/results (one isError),
//     thinking, an image, two branches (branch, branchWithSummary), labels set and
//     cleared, session_info, custom + custom_message entries, bashExecution, model and
//     thinking changes, a compaction, an aborted message; --with-reset adds a second root.
//     With pi 1.6 also: system messages (a full prompt, then patches that remove a section
//     and add/remove tools), usage entries, context edits (omit and replace, on user,
//     assistant, tool-result and custom-message entries), thinking level "max", a
//     compaction that keeps a range and one that keeps none (both with a checkpoint);
//     --seed N varies the shape (turn counts, where edits, branches and compactions go).
//     Output: { pi_version, path, id, leafId, entry_count, ids: {name: id} }
//
//   time FILE [--repeat N]
//     Best of N (after one warm-up run), in process: readFileSync + parseSessionEntries
//     + migrateSessionEntries + buildSessionContext.
//     Output: { pi_version, bytes, entries, context_messages, best_ms, runs_ms: [...] }
//
//   version
//     Output: { pi_version, modules, node }
//
// Exit status: 0 with a JSON document (a pi exception during load/fork is
// reported inside it as "error"); 2 with {"oracle_error": "..."} on stdout
// for usage errors or when pi cannot be found.

import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const PI_PACKAGES = ["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"];
const PREFIX_CODEPOINTS = 80;

class OracleError extends Error {}

// ---------------------------------------------------------------------------
// Locating and importing pi
// ---------------------------------------------------------------------------

function candidateModuleDirs() {
	const out = [];
	const env = process.env.PI_LSP_PI_MODULES;
	if (env) {
		out.push(env, join(env, "node_modules"));
		return out; // explicit setting: do not silently use something else
	}
	const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
	out.push(join(cacheHome, "pi-lsp", "npm", "node_modules"));
	return out;
}

function wantedPackages() {
	const env = process.env.PI_LSP_PI_PACKAGE;
	return env ? [env] : PI_PACKAGES;
}

export function findPiModules() {
	for (const dir of candidateModuleDirs()) {
		for (const name of wantedPackages()) {
			if (existsSync(join(dir, name, "package.json"))) return { modules: resolve(dir), name };
		}
	}
	return null;
}

async function importIfThere(path) {
	return existsSync(path) ? await import(pathToFileURL(path).href) : null;
}

let piCache = null;
async function loadPi() {
	if (piCache) return piCache;
	const found = findPiModules();
	if (!found) {
		throw new OracleError(
			`cannot find ${wantedPackages().join(" or ")}; set PI_LSP_PI_MODULES to a node_modules directory (tried ${candidateModuleDirs().join(", ")})`,
		);
	}
	const { modules, name } = found;
	const pkgDir = join(modules, name);
	const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
	// Import the session module directly (the package index pulls in the whole
	// agent and costs ~1.5 s; this file is what the index re-exports).
	const smPath = join(pkgDir, "dist", "core", "session-manager.js");
	const sm = existsSync(smPath)
		? await import(pathToFileURL(smPath).href)
		: await import(pathToFileURL(join(pkgDir, pkg.main || "dist/index.js")).href);
	for (const fn of ["parseSessionEntries", "migrateSessionEntries", "buildSessionContext", "SessionManager"]) {
		if (typeof sm[fn] !== "function") throw new OracleError(`pi module does not export ${fn}`);
	}
	const messages = await importIfThere(join(pkgDir, "dist", "core", "messages.js"));
	// pi-ai sits beside the agent (its scope is the agent's): 1.x keeps transformMessages
	// in dist/api/, 0.x in dist/providers/.
	const aiDir = join(modules, name.split("/")[0], "pi-ai", "dist");
	const transform =
		(await importIfThere(join(aiDir, "api", "transform-messages.js"))) ??
		(await importIfThere(join(aiDir, "providers", "transform-messages.js")));
	const text = await importIfThere(join(aiDir, "utils", "text.js"));
	piCache = {
		sm,
		version: pkg.version,
		modules,
		pkgDir,
		// pi 1.x: line-by-line loader and the session projection
		projection: typeof sm.buildSessionProjection === "function",
		convertToLlm: messages?.convertToLlm ?? null,
		transformMessages: transform?.transformMessages ?? null,
		contentText: text?.contentText ?? contentTextFallback,
	};
	return piCache;
}

/** pi-ai's contentText, for pi-ai releases that do not export it (0.x). */
function contentTextFallback(content, separator = "\n") {
	if (typeof content === "string") return content;
	return content
		.filter((block) => block.type === "text")
		.map((block) => block.text)
		.join(separator);
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** First n code points (not UTF-16 units), so Python's s[:n] gives the same. */
function prefix(s, n = PREFIX_CODEPOINTS) {
	if (typeof s !== "string") return null;
	if (s.length <= n) return s;
	let out = "";
	let count = 0;
	for (const ch of s) {
		if (count++ >= n) break;
		out += ch;
	}
	return out;
}

function countNewlines(s) {
	let n = 0;
	for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
	return n;
}

/**
 * Physical line (0-based, counting "\n" only) of every entry that pi's
 * parseSessionEntries keeps. Mirrors its loop exactly:
 *   content.trim().split("\n"), skip blank (after trim) lines, keep lines JSON.parse accepts.
 * trim() drops leading whitespace (blank lines, BOM, ...), so the split index is
 * offset by the number of "\n" in the dropped prefix.
 */
function parsedEntryLines(content) {
	const lead = content.length - content.trimStart().length;
	const base = countNewlines(content.slice(0, lead));
	const lines = content.trim().split("\n");
	const out = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		if (!line.trim()) continue;
		try {
			JSON.parse(line);
			out.push(base + i);
		} catch {
			// pi skips malformed lines
		}
	}
	return out;
}

/**
 * Physical line (0-based) of every entry pi 1.6's loadEntriesFromFile keeps: the file is
 * split on "\n" with no trim, and a line is kept when it is not blank and JSON.parse
 * gives a truthy value (parseSessionEntryLine + `if (entry)`).
 */
function loaderLines(content) {
	const out = [];
	const lines = content.split("\n");
	for (let i = 0; i < lines.length; i++) {
		if (!lines[i].trim()) continue;
		let entry;
		try {
			entry = JSON.parse(lines[i]);
		} catch {
			continue;
		}
		if (entry) out.push(i);
	}
	return out;
}

/** A scratch copy of content, for pi functions that write to the file they read. */
function withScratchFile(content, fn) {
	const dir = mkdtempSync(join(tmpdir(), "pi-oracle-"));
	try {
		const file = join(dir, "session.jsonl");
		writeFileSync(file, content);
		return fn(file);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** The entries pi reads from a file's content, their physical lines, and whether pi accepts it. */
function readEntries(pi, content) {
	if (pi.projection) {
		const entries = withScratchFile(content, (file) => pi.sm.loadEntriesFromFile(file));
		const lines = entries.length ? loaderLines(content) : [];
		return { entries, lines, accepts: entries.length > 0 };
	}
	const entries = pi.sm.parseSessionEntries(content);
	const first = entries[0];
	const accepts = !!first && typeof first === "object" && first.type === "session" && typeof first.id === "string";
	return { entries, lines: parsedEntryLines(content), accepts };
}

function jsonType(v) {
	if (v === null) return "null";
	if (Array.isArray(v)) return "array";
	return typeof v;
}

function summarizeEntry(entry, line) {
	if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
		return { line, type: null, id: null, parentId: null, json_type: jsonType(entry) };
	}
	const out = {
		line,
		type: entry.type ?? null,
		id: entry.id ?? null,
		parentId: entry.parentId === undefined ? null : entry.parentId,
	};
	if (entry.type === "session") {
		out.version = entry.version ?? null;
		if (entry.parentSession !== undefined) out.parentSession = entry.parentSession;
	}
	if (entry.type === "compaction") {
		if ("firstKeptEntryId" in entry) out.firstKeptEntryId = entry.firstKeptEntryId ?? null;
		if ("firstKeptEntryIndex" in entry) out.firstKeptEntryIndex = entry.firstKeptEntryIndex;
	}
	if (entry.type === "label") {
		out.targetId = entry.targetId ?? null;
		out.label = entry.label ?? null;
	}
	if (entry.type === "branch_summary") out.fromId = entry.fromId ?? null;
	if (entry.type === "custom" || entry.type === "custom_message") out.customType = entry.customType ?? null;
	if (entry.type === "message" && entry.message && typeof entry.message === "object") {
		out.role = entry.message.role ?? null;
		if (entry.message.role === "toolResult") out.toolCallId = entry.message.toolCallId ?? null;
	}
	return out;
}

function firstText(content) {
	if (typeof content === "string") return prefix(content);
	if (Array.isArray(content)) {
		const block = content.find((b) => b && b.type === "text" && typeof b.text === "string");
		return block ? prefix(block.text) : null;
	}
	return null;
}

function summarizeMessage(m, line) {
	if (m === null || typeof m !== "object") return { role: null, line, json_type: jsonType(m) };
	const out = { role: m.role ?? null, line };
	switch (m.role) {
		case "compactionSummary":
			out.summary = prefix(m.summary);
			out.tokensBefore = m.tokensBefore ?? null;
			break;
		case "branchSummary":
			out.summary = prefix(m.summary);
			out.fromId = m.fromId ?? null;
			break;
		case "custom":
		case "hookMessage":
			out.customType = m.customType ?? null;
			out.display = m.display ?? null;
			break;
		case "toolResult":
			out.toolCallId = m.toolCallId ?? null;
			out.toolName = m.toolName ?? null;
			out.isError = m.isError ?? null;
			break;
		case "assistant":
			out.stopReason = m.stopReason ?? null;
			out.toolCallIds = Array.isArray(m.content)
				? m.content.filter((b) => b && b.type === "toolCall").map((b) => b.id ?? null)
				: [];
			break;
		case "bashExecution":
			out.command = prefix(m.command);
			break;
		default:
			break;
	}
	out.content_types = Array.isArray(m.content) ? m.content.map((b) => (b && typeof b === "object" ? (b.type ?? null) : null)) : typeof m.content === "string" ? "string" : null;
	out.text_prefix = firstText(m.content);
	return out;
}

/** Resolve the leaf the way buildSessionContext does (without calling it). */
function resolveLeaf(entries, leafId) {
	const byId = new Map();
	for (const e of entries) byId.set(e.id, e);
	let leaf;
	if (leafId) leaf = byId.get(leafId);
	if (!leaf) leaf = entries[entries.length - 1];
	return { leaf, byId };
}

/** The path pi would walk from the leaf; null if the walk would never end (cycle). */
function walkPath(leaf, byId) {
	const path = [];
	const seen = new Set();
	let current = leaf;
	while (current) {
		if (seen.has(current)) return null;
		seen.add(current);
		path.unshift(current);
		current = current.parentId ? byId.get(current.parentId) : undefined;
	}
	return path;
}

/**
 * Map every context message back to the physical line of the entry it came from.
 * Messages are emitted in path order (the compaction summary first), so a cursor
 * over the path keeps this linear.
 */
function contextLines(messages, path, lineOf) {
	const pathIndex = new Map();
	const byMessage = new Map();
	let lastCompaction = null;
	path.forEach((e, i) => {
		pathIndex.set(e, i);
		if (e.type === "message" && e.message && typeof e.message === "object") byMessage.set(e.message, e);
		if (e.type === "compaction") lastCompaction = e;
	});
	let cursor = 0;
	const scan = (pred) => {
		for (let i = cursor; i < path.length; i++) {
			if (pred(path[i])) {
				cursor = i + 1;
				return lineOf.get(path[i]) ?? null;
			}
		}
		return null;
	};
	return messages.map((m) => {
		if (!m || typeof m !== "object") return null;
		const direct = byMessage.get(m); // message entries: the very same object
		if (direct) {
			cursor = pathIndex.get(direct) + 1;
			return lineOf.get(direct) ?? null;
		}
		if (m.role === "compactionSummary") return lastCompaction ? (lineOf.get(lastCompaction) ?? null) : null;
		if (m.role === "branchSummary") {
			return scan((e) => e.type === "branch_summary" && e.summary === m.summary && e.fromId === m.fromId);
		}
		if (m.role === "custom") {
			return scan((e) => e.type === "custom_message" && e.content === m.content && e.customType === m.customType);
		}
		return null;
	});
}

function errorInfo(stage, err) {
	return { stage, name: err?.name ?? "Error", message: String(err?.message ?? err) };
}

/** What pi sends for one context message: convertToLlm, then contentText; null when dropped. */
function llmText(pi, message) {
	if (!pi.convertToLlm) return null;
	try {
		const [converted] = pi.convertToLlm([message]);
		return converted ? pi.contentText(converted.content ?? []) : null;
	} catch (err) {
		return `<pi threw: ${err?.message ?? err}>`;
	}
}

/**
 * pi-ai's transformMessages over convertToLlm(messages): what the provider receives.
 * Each result names the line of its context message; synthetic results (the "No result
 * provided" answers pi-ai adds for unanswered calls) have line null.
 */
function sentMessages(pi, messages, lines, model) {
	if (!pi.convertToLlm || !pi.transformMessages) return null;
	const converted = [];
	messages.forEach((m, i) => {
		for (const c of pi.convertToLlm([m])) converted.push({ message: c, line: lines[i] });
	});
	const target = {
		provider: model?.provider ?? "anthropic",
		api: "anthropic-messages",
		id: model?.modelId ?? "oracle",
		input: ["text", "image"],
	};
	let sent;
	try {
		sent = pi.transformMessages(converted.map((c) => c.message), target);
	} catch (err) {
		return { error: String(err?.message ?? err) };
	}
	// user, toolResult and system messages pass through as the same objects; every kept
	// assistant message is a new object, in order (error/aborted turns are dropped)
	const lineOfMessage = new Map(converted.map((c) => [c.message, c.line]));
	const assistants = converted.filter(
		(c) => c.message.role === "assistant" && c.message.stopReason !== "error" && c.message.stopReason !== "aborted",
	);
	let nextAssistant = 0;
	return sent.map((m) => {
		let line = lineOfMessage.has(m) ? lineOfMessage.get(m) : null;
		if (m.role === "assistant") line = assistants[nextAssistant++]?.line ?? null;
		const out = { role: m.role, line };
		if (m.role === "toolResult") out.toolCallId = m.toolCallId ?? null;
		if (m.role === "assistant") {
			out.toolCallIds = Array.isArray(m.content)
				? m.content.filter((b) => b && b.type === "toolCall").map((b) => b.id ?? null)
				: [];
		}
		if (line === null && m.role === "toolResult") out.synthetic = true;
		return out;
	});
}

/** parse + migrate + build the context on a string, the way SessionManager does it. */
function analyse(pi, content, { leafId, leafNull = false } = {}) {
	const { migrateSessionEntries, buildSessionContext } = pi.sm;
	const { entries, lines, accepts } = readEntries(pi, content);
	if (lines.length !== entries.length) {
		throw new OracleError(`line mapping out of sync with pi (${lines.length} lines vs ${entries.length} entries)`);
	}
	const lineOf = new Map();
	entries.forEach((e, i) => {
		if (e !== null && typeof e === "object") lineOf.set(e, lines[i]);
	});
	let versionBefore = null;
	let error = null;
	try {
		const header = entries.find((e) => e.type === "session");
		versionBefore = header?.version ?? 1;
	} catch (err) {
		error = errorInfo("migrate", err);
	}
	if (!error) {
		try {
			migrateSessionEntries(entries);
		} catch (err) {
			error = errorInfo("migrate", err);
		}
	}
	let versionAfter = null;
	try {
		versionAfter = entries.find((e) => e && e.type === "session")?.version ?? null;
	} catch {
		// keep null
	}
	const out = {
		pi_version: pi.version,
		pi_accepts: accepts,
		version_before: versionBefore,
		version_after: versionAfter,
		entries: entries.map((e, i) => summarizeEntry(e, lines[i])),
		leafId: null,
		leafLine: null,
		context: null,
	};
	if (error) {
		out.error = error;
		return out;
	}
	try {
		const body = entries.filter((e) => e.type !== "session");
		let path = [];
		if (!leafNull) {
			const { leaf, byId } = resolveLeaf(body, leafId);
			if (leaf) {
				path = walkPath(leaf, byId);
				out.leafId = leaf.id ?? null;
				out.leafLine = lineOf.get(leaf) ?? null;
				if (path === null) {
					out.error = {
						stage: "context",
						name: "Hang",
						message: "parentId cycle on the leaf's path: pi's buildSessionContext would never return",
					};
					return out;
				}
			}
		}
		const leaf = leafNull ? null : leafId;
		let messages;
		let msgLines;
		let entryLines = null;
		let ctx;
		if (pi.projection) {
			ctx = pi.sm.buildSessionProjection(body, leaf);
			messages = ctx.messages;
			msgLines = ctx.entries.flatMap((e) => e.messages.map(() => lineOf.get(e.sourceEntry) ?? null));
			entryLines = ctx.entries.map((e) => lineOf.get(e.sourceEntry) ?? null);
		} else {
			ctx = buildSessionContext(body, leaf);
			messages = ctx.messages;
			msgLines = contextLines(messages, path, lineOf);
		}
		out.path_lines = path.map((e) => lineOf.get(e) ?? null);
		out.context = {
			messages: messages.map((m, i) => ({ ...summarizeMessage(m, msgLines[i]), text: llmText(pi, m) })),
			thinkingLevel: ctx.thinkingLevel ?? null,
			model: ctx.model ?? null,
		};
		if (entryLines) out.context.entry_lines = entryLines;
		out.sent = sentMessages(pi, messages, msgLines, ctx.model);
	} catch (err) {
		out.error = errorInfo("context", err);
	}
	return out;
}

// ---------------------------------------------------------------------------
// Subcommands
// ---------------------------------------------------------------------------

function parseArgs(argv, spec) {
	// spec: { flagName: "value" | "bool" }
	const positional = [];
	const opts = {};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a.startsWith("--")) {
			const name = a.slice(2);
			const kind = spec[name];
			if (!kind) throw new OracleError(`unknown option ${a}`);
			if (kind === "bool") opts[name] = true;
			else {
				if (i + 1 >= argv.length) throw new OracleError(`option ${a} needs a value`);
				opts[name] = argv[++i];
			}
		} else positional.push(a);
	}
	return { positional, opts };
}

function readSession(file) {
	if (!existsSync(file)) throw new OracleError(`no such file: ${file}`);
	return readFileSync(file, "utf8");
}

async function cmdLoad(argv) {
	const { positional, opts } = parseArgs(argv, { leaf: "value", "leaf-null": "bool" });
	if (positional.length !== 1) throw new OracleError("usage: load FILE [--leaf ID | --leaf-null]");
	const pi = await loadPi();
	const content = readSession(positional[0]);
	return analyse(pi, content, { leafId: opts.leaf, leafNull: !!opts["leaf-null"] });
}

async function cmdFork(argv) {
	const { positional, opts } = parseArgs(argv, { at: "value", "at-line": "value", dir: "value" });
	if (positional.length !== 1 || (!opts.at && opts["at-line"] === undefined) || !opts.dir) {
		throw new OracleError("usage: fork FILE (--at ID | --at-line N) --dir OUTDIR");
	}
	const pi = await loadPi();
	const { SessionManager } = pi.sm;
	const source = resolve(positional[0]);
	if (!existsSync(source)) throw new OracleError(`no such file: ${source}`);
	const outDir = resolve(opts.dir);
	// SessionManager.open() rewrites the file in place when it migrates it (or when it has
	// no valid header), and pi 1.6 appends a missing final newline: never let it touch the
	// caller's file, open a copy.
	const content = readFileSync(source, "utf8");
	const { entries: loaded, lines } = readEntries(pi, content);
	const header = loaded.find((e) => e && e.type === "session");
	const wouldRewrite = loaded.length === 0 || (header?.version ?? 1) < pi.sm.CURRENT_SESSION_VERSION;
	const tmp = mkdtempSync(join(tmpdir(), "pi-oracle-"));
	const opened = join(tmp, "source.jsonl");
	copyFileSync(source, opened);
	const out = { pi_version: pi.version, source, source_migrated_by_pi: wouldRewrite };
	try {
		const sm = SessionManager.open(opened, outDir);
		let at = opts.at;
		if (opts["at-line"] !== undefined) {
			// v1 ids are random per load: address the entry by its physical line.
			const wanted = Number.parseInt(opts["at-line"], 10);
			const all = sm.fileEntries ?? [sm.getHeader(), ...sm.getEntries()];
			const idx = lines.indexOf(wanted);
			if (idx < 0 || idx >= all.length || !all[idx] || all[idx].type === "session") {
				throw new OracleError(`no entry on line ${wanted} of ${source}`);
			}
			at = all[idx].id;
		}
		out.at = at;
		let path;
		try {
			path = sm.createBranchedSession(at);
		} catch (err) {
			out.error = errorInfo("fork", err);
			return out;
		}
		out.path = path ?? null;
		out.written = !!path && existsSync(path);
		out.leafId = sm.getLeafId();
		if (out.written) {
			let written = readFileSync(path, "utf8");
			// pi would have named the original as parent: say so.
			const nl = written.indexOf("\n");
			const head = JSON.parse(written.slice(0, nl));
			if (head.parentSession === opened) {
				head.parentSession = source;
				written = JSON.stringify(head) + written.slice(nl);
				writeFileSync(path, written);
			}
			const res = analyse(pi, written);
			out.header = res.entries[0] ?? null;
			out.entries = res.entries;
			out.context_length = res.context ? res.context.messages.length : null;
		} else {
			// pi defers writing until the first assistant message; report memory.
			const h = sm.getHeader();
			if (h && h.parentSession === opened) h.parentSession = source;
			const all = [h, ...sm.getEntries()];
			out.header = summarizeEntry(h, 0);
			out.entries = all.map((e, i) => summarizeEntry(e, i));
		}
		return out;
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}

// A tiny 1x1 PNG, as base64 (what pi stores in image blocks).
const TINY_PNG =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

function usage(input, output) {
	const cost = {
		input: input * 3e-6,
		output: output * 15e-6,
		cacheRead: 0,
		cacheWrite: 0,
	};
	cost.total = cost.input + cost.output;
	return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost };
}

async function cmdWriteSample(argv) {
	const { positional, opts } = parseArgs(argv, { cwd: "value", "with-reset": "bool", seed: "value" });
	if (positional.length !== 1) throw new OracleError("usage: write-sample OUTDIR [--cwd CWD] [--with-reset] [--seed N]");
	const pi = await loadPi();
	const { SessionManager } = pi.sm;
	const outDir = resolve(positional[0]);
	const cwd = opts.cwd ?? "/home/user/project";
	const sm = SessionManager.create(cwd, outDir);
	let t = Date.now();
	const ts = () => (t += 7);
	const model = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" };
	const user = (content) => sm.appendMessage({ role: "user", content, timestamp: ts() });
	const assistant = (content, stopReason = "stop", extra = {}) =>
		sm.appendMessage({ role: "assistant", content, ...model, usage: usage(1200, 300), stopReason, timestamp: ts(), ...extra });
	const toolResult = (toolCallId, toolName, text, isError = false, details) =>
		sm.appendMessage({
			role: "toolResult",
			toolCallId,
			toolName,
			content: [{ type: "text", text }],
			details,
			isError,
			timestamp: ts(),
		});

	// pi 1.6 only: system messages, usage entries, context edits, two kinds of compaction
	const pi16 = pi.projection;
	let seed = Number.parseInt(opts.seed ?? "1", 10) || 1;
	const pick = (n) => {
		seed = (seed * 1103515245 + 12345) % 2147483648;
		return Math.floor((seed / 2147483648) * n);
	};
	const tool = (name) => ({ name, description: `${name} tool`, parameters: { type: "object", properties: {} } });
	const system = (fields) => sm.appendMessage({ role: "system", content: "", ...fields, timestamp: ts() });
	const usageEntry = (kind) => sm.appendUsage(kind, "anthropic", "claude-sonnet-4-5", usage(900 + pick(100), 20)).id;
	const edit = (target, replacement) => sm.appendContextEdit(target, replacement);
	let turn = 100;
	const toolTurn = () => {
		const id = `toolu_${turn++}`;
		const a = assistant([{ type: "text", text: `Checking ${id}.` }, { type: "toolCall", id, name: "read", arguments: { path: `src/${id}.ts` } }], "toolUse");
		const r = toolResult(id, "read", `contents of ${id}`);
		return { a, r };
	};

	const ids = {};
	if (pi16) {
		ids.system0 = system({
			sections: { preamble: "You are pi, a coding agent.", tools: "<tools>read edit write bash</tools>", cwd },
			toolsAdded: [tool("read"), tool("edit"), tool("write"), tool("bash")],
		});
	}
	ids.model = sm.appendModelChange("anthropic", "claude-sonnet-4-5");
	ids.thinking = sm.appendThinkingLevelChange("medium");
	ids.u1 = user("Read src/parser.ts and explain why it drops the last line.");
	ids.a1 = assistant(
		[
			{ type: "thinking", thinking: "I should read the file first.", thinkingSignature: "EqQBCkYIBxgCKkBsig==" },
			{ type: "text", text: "Let me read the parser." },
			{ type: "toolCall", id: "toolu_01", name: "read", arguments: { path: "src/parser.ts" } },
		],
		"toolUse",
	);
	ids.r1 = toolResult("toolu_01", "read", "export function parse(text: string) {\n\treturn text.split(\"\\n\").slice(0, -1);\n}\n");
	ids.a2 = assistant([{ type: "text", text: "The `slice(0, -1)` drops the last line even when there is no trailing newline." }]);
	ids.label1 = sm.appendLabelChange(ids.a2, "diagnosis");
	if (pi16) {
		ids.usage1 = usageEntry("cache_warm");
		ids.edit1 = edit(ids.u1, { content: "Read src/parser.ts (question shortened by a context edit)." });
	}
	ids.info = sm.appendSessionInfo("Parser bug hunt");
	ids.u2 = user([
		{ type: "text", text: "Fix it, and here is a screenshot of the failure:" },
		{ type: "image", data: TINY_PNG, mimeType: "image/png" },
	]);
	ids.a3 = assistant(
		[
			{ type: "text", text: "Editing the file and running the tests." },
			{
				type: "toolCall",
				id: "toolu_02",
				name: "edit",
				arguments: { path: "src/parser.ts", oldText: ".slice(0, -1)", newText: ".filter((l, i, a) => i < a.length - 1 || l !== \"\")" },
			},
			{ type: "toolCall", id: "toolu_03", name: "bash", arguments: { command: "npm test" } },
		],
		"toolUse",
	);
	ids.r2 = toolResult("toolu_02", "edit", "Successfully replaced text in src/parser.ts.", false, { diff: "-1 .slice(0, -1)\n+1 .filter(...)" });
	ids.r3 = toolResult("toolu_03", "bash", "1 failing\n  parser keeps empty last line", true, {});
	ids.custom = sm.appendCustomEntry("my-extension", { runs: 1 });
	if (pi16) ids.edit2 = edit(ids.r2, { content: "Edited (output trimmed by a context edit)." });
	ids.a4 = assistant([{ type: "text", text: "One test still fails; the empty last line is kept." }]);
	// Branch: go back to the first answer and try a different approach.
	sm.branch(ids.a2);
	ids.u3 = user("Instead, rewrite parse() with a regex split.");
	ids.modelChange = sm.appendModelChange("openai", "gpt-5.1-codex");
	ids.thinking2 = sm.appendThinkingLevelChange(pi16 ? "max" : "high");
	if (pi16) {
		ids.system1 = system({ sections: { cwd: null, skills: "<skills>lint</skills>" }, toolsAdded: [tool("grep")], toolsRemoved: [{ name: "write" }] });
	}
	ids.a5 = sm.appendMessage({
		role: "assistant",
		content: [
			{ type: "text", text: "Rewriting with /\\r?\\n/." },
			{ type: "toolCall", id: "call_04", name: "write", arguments: { path: "src/parser.ts", content: "export const parse = (t: string) => t.split(/\\r?\\n/);\n" } },
		],
		api: "openai-responses",
		provider: "openai",
		model: "gpt-5.1-codex",
		usage: usage(2100, 420),
		stopReason: "toolUse",
		timestamp: ts(),
	});
	ids.r5 = toolResult("call_04", "write", "Successfully wrote 55 bytes to src/parser.ts");
	ids.bash = sm.appendMessage({
		role: "bashExecution",
		command: "npm test",
		output: "all 12 tests passed\n",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: ts(),
	});
	ids.customMsg = sm.appendCustomMessageEntry("my-extension", "Reminder: run the linter too.", true, { source: "hook" });
	if (pi16 && pick(2) === 0) ids.edit3 = edit(ids.customMsg, { content: [{ type: "text", text: "Reminder (edited)." }] });
	ids.a6 = sm.appendMessage({
		role: "assistant",
		content: [{ type: "text", text: "Tests pass with the regex split." }],
		api: "openai-responses",
		provider: "openai",
		model: "gpt-5.1-codex",
		usage: usage(2500, 120),
		stopReason: "stop",
		timestamp: ts(),
	});
	ids.label2 = sm.appendLabelChange(ids.u3, "regex-approach");
	ids.labelClear = sm.appendLabelChange(ids.a2, undefined);
	// Branch with a summary of the abandoned path, from the first edit turn.
	ids.branchSummary = sm.branchWithSummary(ids.r3, "Tried .filter(); one test kept failing on an empty last line.");
	ids.u4 = user("Go back to the filter approach but handle the empty line.");
	ids.a7 = assistant([
		{ type: "thinking", thinking: "Handle the trailing empty string explicitly.", thinkingSignature: "" },
		{ type: "text", text: "Done: trailing empty string is now dropped only after a final newline." },
	]);
	ids.u5 = user("Summarise everything so far; the context is getting long.");
	ids.a8 = assistant([{ type: "text", text: "Summary: parse() now handles missing trailing newlines." }]);
	ids.compaction = sm.appendCompaction(
		"## Goal\nFix parser dropping the last line.\n## Progress\n- filter approach works",
		ids.branchSummary,
		48213,
		{ readFiles: ["src/parser.ts"], modifiedFiles: ["src/parser.ts"] },
	);
	ids.u6 = user("Now add a test for CRLF input.");
	ids.a9 = assistant(
		[{ type: "toolCall", id: "toolu_05", name: "write", arguments: { path: "test/crlf.test.ts" } }],
		"toolUse",
	);
	ids.r9 = toolResult("toolu_05", "write", "Successfully wrote 210 bytes to test/crlf.test.ts");
	ids.a10 = assistant([], "aborted", { errorMessage: "Request was aborted." });
	ids.u7 = user("Continue.");
	ids.a11 = assistant([{ type: "text", text: "Added test/crlf.test.ts; all tests pass." }]);
	ids.label3 = sm.appendLabelChange(ids.a11, "done");
	if (pi16) {
		for (let n = pick(3); n > 0; n--) toolTurn();
		ids.u8 = user("Drop the debugging chatter from the context.");
		ids.a12 = assistant([{ type: "text", text: "Understood." }]);
		// omit a text-only exchange, or replace an assistant turn's text
		if (pick(2) === 0) {
			ids.edit4 = edit(ids.u8, null);
		} else {
			ids.edit4 = edit(ids.a12, { content: "Understood (edited)." });
		}
		ids.usage2 = usageEntry("summary");
		ids.compaction2 = sm.appendCompaction("Everything so far, summarised; nothing kept.", undefined, 61000, { readFiles: [], modifiedFiles: [] });
		ids.u9 = user("Next task: document parse().");
		for (let n = 1 + pick(3); n > 0; n--) toolTurn();
		ids.a13 = assistant([{ type: "text", text: "Documented." }]);
		if (pick(2) === 0) {
			// a later branch with a summary, then a keep-range compaction on it
			ids.branchSummary2 = sm.branchWithSummary(ids.u9, "Tried documenting in the README instead.");
			ids.u10 = user("Put the docs in the source instead.");
			ids.a14 = assistant([{ type: "text", text: "Moved the docs into parser.ts." }]);
			ids.compaction3 = sm.appendCompaction("Docs moved into the source.", ids.u10, 30000, {});
			ids.u11 = user("Thanks.");
			ids.a15 = assistant([{ type: "text", text: "You're welcome." }]);
		}
		ids.thinking3 = sm.appendThinkingLevelChange(["off", "low", "max"][pick(3)]);
	}
	if (opts["with-reset"]) {
		sm.resetLeaf();
		ids.root2 = user("Start over: a new root after a leaf reset.");
		ids.root2a = assistant([{ type: "text", text: "Fresh start." }]);
	}
	const path = sm.getSessionFile();
	return {
		pi_version: pi.version,
		path,
		id: sm.getSessionId(),
		leafId: sm.getLeafId(),
		entry_count: sm.getEntries().length,
		ids,
	};
}

async function cmdTime(argv) {
	const { positional, opts } = parseArgs(argv, { repeat: "value" });
	if (positional.length !== 1) throw new OracleError("usage: time FILE [--repeat N]");
	const repeat = Math.max(1, Number.parseInt(opts.repeat ?? "5", 10) || 1);
	const pi = await loadPi();
	const { parseSessionEntries, migrateSessionEntries, buildSessionContext } = pi.sm;
	const file = positional[0];
	if (!existsSync(file)) throw new OracleError(`no such file: ${file}`);
	const once = () => {
		const t0 = performance.now();
		const entries = parseSessionEntries(readFileSync(file, "utf8"));
		migrateSessionEntries(entries);
		const ctx = buildSessionContext(entries.filter((e) => e.type !== "session"));
		const ms = performance.now() - t0;
		return { ms, entries: entries.length, messages: ctx.messages.length };
	};
	const warm = once(); // warm-up, not counted
	const runs = [];
	for (let i = 0; i < repeat; i++) runs.push(once().ms);
	const round = (x) => Math.round(x * 1000) / 1000;
	return {
		pi_version: pi.version,
		bytes: statSync(file).size,
		entries: warm.entries,
		context_messages: warm.messages,
		best_ms: round(Math.min(...runs)),
		runs_ms: runs.map(round),
	};
}

async function cmdVersion() {
	const pi = await loadPi();
	return { pi_version: pi.version, modules: pi.modules, node: process.version };
}

const COMMANDS = { load: cmdLoad, fork: cmdFork, "write-sample": cmdWriteSample, time: cmdTime, version: cmdVersion };

async function main() {
	const [cmd, ...rest] = process.argv.slice(2);
	const fn = COMMANDS[cmd];
	if (!fn) throw new OracleError(`usage: pi_oracle.mjs {${Object.keys(COMMANDS).join("|")}} ...`);
	const result = await fn(rest);
	process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err) => {
	const message = err instanceof OracleError ? err.message : String(err?.stack ?? err);
	process.stdout.write(`${JSON.stringify({ oracle_error: message })}\n`);
	process.exitCode = 2;
});
