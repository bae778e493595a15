#!/usr/bin/env node
// generate.mjs — write a realistic pi session file of about N MB, the way pi writes it.
//
//   node bench/generate.mjs --mb N --out FILE|DIR [--images] [--seed S]
//                           [--backend auto|pi|fast] [--cwd CWD] [--quiet]
//
// The session is a conversation tree: user turns, assistant messages with thinking,
// text and tool calls, tool results (read/bash/edit/write outputs), bash executions,
// branches every so often (plain re-edits and branchWithSummary), labels (set and
// cleared), compactions with firstKeptEntryId, session names, custom entries and
// custom messages, model and thinking-level changes; with --images, user messages
// and image reads carrying base64 PNG blocks of ~200 KB – 2 MB.
//
// Backends (default auto: pi when it can be imported, else fast; the summary says which):
//   fast            writes the entries itself through one buffered fd. Every entry is
//                   built exactly as pi 0.73.1's SessionManager builds it (same keys in
//                   the same order, 8-hex ids unique in the file, parentId = the current
//                   leaf, ISO timestamps, uuidv7 header id). Byte-for-byte reproducible
//                   for a --seed: ids and the clock are drawn from seeded generators.
//   pi              drives pi's own SessionManager (appendFileSync per entry, every
//                   entry kept in memory; about as fast: ~50 MiB/s). Same content and
//                   tree for the same --seed; only ids and entry timestamps differ
//                   (pi draws them itself). pi is imported from $PI_LSP_PI_MODULES, else
//                   bench/node_modules (npm ci in bench/), else
//                   ${XDG_CACHE_HOME:-~/.cache}/pi-lsp/npm/node_modules.
//
// --out DIR writes DIR/<timestamp>_<uuid>.jsonl as pi names sessions. "MB" is MiB.
// Prints one JSON summary on stdout; progress on stderr unless --quiet.

import { randomUUID } from "node:crypto";
import {
	closeSync,
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	renameSync,
	rmSync,
	statSync,
	writeSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PI_PACKAGE = "@mariozechner/pi-coding-agent";
const MIB = 1024 * 1024;

// ---------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------

function parseArgs(argv) {
	const opts = { mb: null, out: null, images: false, seed: "1", backend: "auto", cwd: "/home/user/project", quiet: false };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const val = () => {
			if (i + 1 >= argv.length) die(`${a} needs a value`);
			return argv[++i];
		};
		if (a === "--mb") opts.mb = Number(val());
		else if (a === "--out") opts.out = val();
		else if (a === "--images") opts.images = true;
		else if (a === "--seed") opts.seed = val();
		else if (a === "--backend") opts.backend = val();
		else if (a === "--cwd") opts.cwd = val();
		else if (a === "--quiet") opts.quiet = true;
		else if (a === "-h" || a === "--help") {
			process.stdout.write("usage: node bench/generate.mjs --mb N --out FILE|DIR [--images] [--seed S] [--backend auto|pi|fast] [--cwd CWD] [--quiet]\n");
			process.exit(0);
		} else die(`unknown argument ${a}`);
	}
	if (!(opts.mb > 0) || !opts.out) die("usage: node bench/generate.mjs --mb N --out FILE|DIR [--images] [--seed S] [--backend auto|pi|fast]");
	if (!["auto", "fast", "pi"].includes(opts.backend)) die("--backend must be auto, pi or fast");
	if (opts.backend === "auto") opts.backend = findPiModules() ? "pi" : "fast";
	return opts;
}

function die(msg) {
	process.stderr.write(`generate.mjs: ${msg}\n`);
	process.exit(2);
}

// ---------------------------------------------------------------------------
// Seeded randomness
// ---------------------------------------------------------------------------

function hashSeed(s) {
	let h = 2166136261 >>> 0;
	for (const ch of String(s)) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
	return h;
}

function makeRng(seed) {
	let a = hashSeed(seed) || 1;
	const next = () => {
		// mulberry32
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const rng = {
		next,
		int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), // inclusive
		chance: (p) => next() < p,
		pick: (arr) => arr[Math.floor(next() * arr.length)],
		hex: (n) => {
			let s = "";
			while (s.length < n) s += ((next() * 4294967296) >>> 0).toString(16).padStart(8, "0");
			return s.slice(0, n);
		},
		alnum: (n) => {
			const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
			let s = "";
			for (let i = 0; i < n; i++) s += A[Math.floor(next() * A.length)];
			return s;
		},
		// log-uniform integer in [lo, hi]
		logInt: (lo, hi) => Math.round(Math.exp(Math.log(lo) + next() * (Math.log(hi) - Math.log(lo)))),
	};
	return rng;
}

function uuidv7(ms, rng) {
	const h = ms.toString(16).padStart(12, "0").slice(-12);
	const r = rng.hex(20);
	const variant = ((Number.parseInt(r[3], 16) & 0x3) | 0x8).toString(16);
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${r.slice(0, 3)}-${variant}${r.slice(4, 7)}-${r.slice(8, 20)}`;
}

// ---------------------------------------------------------------------------
// Content corpus (built once; messages are slices of it, so generation is cheap)
// ---------------------------------------------------------------------------

const WORDS = (
	"the a to of and in is it that for on with as this be are by not or from at an we can will if " +
	"function parser session entry line file test error value type return string number array object " +
	"index offset range token context branch leaf compaction summary label model tool call result " +
	"read write edit bash command output exit code build check lint format import export module " +
	"config option default path directory cache server client request response handler event stream " +
	"buffer chunk encode decode utf8 utf16 position column character newline whitespace trailing " +
	"missing invalid expected found because should would could then now first next last fix update"
).split(" ");
const SPICE = ["ünïcödé", "日本語", "🚀", "naïve", "café", "Ωmega", "—", "→", "✓", "« »", "Straße", "😀"];
const IDENTS = ["parse", "session", "entries", "leafId", "parentId", "buildContext", "migrate", "lineIndex", "offsetAt", "range", "tree", "children", "labels", "render", "handler", "options", "result", "buffer", "encoder", "position"];
const TYPES = ["string", "number", "boolean", "SessionEntry", "Range", "Position", "Map<string, Entry>", "Entry[]", "void", "Promise<void>", "unknown"];
const FILES = [
	"src/parser.ts", "src/session-manager.ts", "src/tree.ts", "src/text.ts", "src/analysis.ts", "src/lsp/server.ts",
	"src/lsp/hover.ts", "src/cli.ts", "test/parser.test.ts", "test/tree.test.ts", "README.md", "package.json",
	"docs/session-format.md", "src/core/compaction.ts", "src/core/messages.ts", "src/tui/tui-renderer.ts",
];
const COMMANDS = ["npm test", "npm run check", "git status", "git diff --stat", "ls -la src", "rg -n parentId src", "npx tsc --noEmit", "cat package.json", "node dist/cli.js --version", "python -m pytest -q"];

function buildCorpus(rng) {
	const word = () => (rng.chance(0.03) ? rng.pick(SPICE) : rng.pick(WORDS));
	const words = (n) => {
		const out = [];
		for (let i = 0; i < n; i++) out.push(word());
		return out.join(" ");
	};
	// Code: TypeScript-ish lines with indentation, quotes, backslashes and tabs.
	const code = [];
	let depth = 0;
	const ind = () => "\t".repeat(depth);
	while (code.length < 30000) {
		const k = rng.int(0, 13);
		const id = rng.pick(IDENTS);
		if (k === 0 && depth === 0) code.push(`import { ${id}, ${rng.pick(IDENTS)} } from "./${rng.pick(IDENTS)}.js";`);
		else if (k === 1 && depth < 4) {
			code.push(`${ind()}export function ${id}${rng.int(1, 99)}(${rng.pick(IDENTS)}: ${rng.pick(TYPES)}): ${rng.pick(TYPES)} {`);
			depth++;
		} else if (k === 2 && depth < 5) {
			code.push(`${ind()}if (${id}.length > ${rng.int(0, 500)} && !${rng.pick(IDENTS)}) {`);
			depth++;
		} else if (k === 3 && depth > 0) {
			depth--;
			code.push(`${ind()}}`);
		} else if (k === 4) code.push(`${ind()}// ${words(rng.int(4, 14))}`);
		else if (k === 5) code.push(`${ind()}const ${id} = "${words(rng.int(1, 6)).replace(/"/g, "'")}\\n";`);
		else if (k === 6) code.push(`${ind()}return ${id}.split("\\n").map((l) => l.trimEnd());`);
		else if (k === 7) code.push("");
		else if (k === 8) code.push(`${ind()}throw new Error(\`${words(rng.int(3, 8))}: \${${id}}\`);`);
		else if (k === 9) code.push(`${ind()}const re = /\\s+\\\\u2028|\\r?\\n/g; // ${words(3)}`);
		else code.push(`${ind()}${id}.${rng.pick(IDENTS)}(${rng.pick(IDENTS)}, ${rng.int(0, 1000)});`);
	}
	const codeText = `${code.join("\n")}\n`;
	const codeOffsets = [0];
	for (let i = codeText.indexOf("\n"); i !== -1; i = codeText.indexOf("\n", i + 1)) codeOffsets.push(i + 1);

	// Prose: sentences and markdown-ish paragraphs.
	const sentences = [];
	while (sentences.length < 20000) {
		let s = words(rng.int(6, 22));
		s = `${s[0].toUpperCase()}${s.slice(1)}${rng.pick([".", ".", ".", "?", ":", "!"])}`;
		if (rng.chance(0.05)) s = `\`${rng.pick(FILES)}\` ${s}`;
		if (rng.chance(0.04)) s = `- ${s}`;
		if (rng.chance(0.02)) s = `## ${s}`;
		// pi writes U+2028/U+2029 raw inside JSON strings: keep a few.
		if (rng.chance(0.0005)) s += "\u2028";
		sentences.push(s);
	}
	const proseText = sentences.join(" ");
	const proseOffsets = [0];
	for (let i = proseText.indexOf(". "); i !== -1; i = proseText.indexOf(". ", i + 1)) proseOffsets.push(i + 2);

	// Random base64 (for images and thinking signatures), with a PNG header in front.
	const png = Buffer.from("89504e470d0a1a0a0000000d49484452000004000000030008060000007c5ef0a6", "hex"); // 33 bytes -> 44 b64 chars
	const bytes = Buffer.allocUnsafe(2304 * 1024); // enough for a 2 MiB image
	for (let i = 0; i < bytes.length; i++) bytes[i] = (rng.next() * 256) | 0;
	const b64 = bytes.toString("base64"); // ~2 MiB of base64
	return { codeText, codeOffsets, proseText, proseOffsets, pngHead: png.toString("base64"), b64 };
}

class Content {
	constructor(rng, corpus) {
		this.rng = rng;
		this.c = corpus;
	}
	codeLines(n) {
		const { codeText, codeOffsets } = this.c;
		const max = codeOffsets.length - 1;
		n = Math.min(n, max);
		const start = this.rng.int(0, max - n);
		return codeText.slice(codeOffsets[start], codeOffsets[start + n]);
	}
	/** About `chars` characters of prose, starting at a sentence, ending at one when near. */
	prose(chars) {
		const { proseText, proseOffsets } = this.c;
		let start;
		do start = proseOffsets[this.rng.int(0, proseOffsets.length - 1)];
		while (start + chars * 2 > proseText.length);
		let end = proseText.indexOf(". ", start + chars);
		if (end === -1 || end > start + chars * 1.5 + 40) end = start + chars;
		else end += 1;
		const last = proseText.charCodeAt(end - 1);
		if (last >= 0xd800 && last <= 0xdbff) end -= 1; // never cut a surrogate pair
		return proseText.slice(start, end);
	}
	markdown(chars) {
		const parts = [];
		let total = 0;
		while (total < chars) {
			const r = this.rng.next();
			let p;
			if (r < 0.15) p = `\`\`\`ts\n${this.codeLines(this.rng.int(3, 25))}\`\`\``;
			else p = this.prose(this.rng.int(80, 600));
			parts.push(p);
			total += p.length;
		}
		return parts.join("\n\n");
	}
	base64(len) {
		len -= len % 4;
		const { b64 } = this.c;
		const start = this.rng.int(0, (b64.length - len) >> 2) << 2;
		return b64.slice(start, start + len);
	}
	image(minBytes, maxBytes) {
		const bytes = this.rng.logInt(minBytes, maxBytes);
		const len = Math.ceil(bytes / 3) * 4;
		return this.c.pngHead + this.base64(Math.max(4, len - this.c.pngHead.length));
	}
}

// ---------------------------------------------------------------------------
// Session writers (same method names and entry shapes as pi's SessionManager)
// ---------------------------------------------------------------------------

class Clock {
	constructor(startMs) {
		this.ms = startMs;
	}
	advance(ms) {
		this.ms += Math.max(1, Math.round(ms));
		return this.ms;
	}
	iso() {
		return new Date(this.ms).toISOString();
	}
}

/** Buffered writer producing exactly what SessionManager 0.73.1 appends. */
class FastSession {
	constructor({ cwd, out, rng, clock }) {
		this.rng = rng; // ids only: the conversation has its own stream, so both backends tell the same story
		this.clock = clock;
		this.cwd = cwd;
		this.byId = new Set();
		this.leafId = null;
		this.bytes = 0;
		this.entries = 0;
		this.chunks = [];
		this.chunkLen = 0;
		this.sessionId = uuidv7(clock.ms, rng);
		const timestamp = clock.iso();
		this.path = out.dir ? join(out.dir, `${timestamp.replace(/[:.]/g, "-")}_${this.sessionId}.jsonl`) : out.file;
		this.fd = openSync(this.path, "w");
		// pi: { type, version, id, timestamp, cwd, parentSession } (parentSession undefined -> omitted)
		this._write({ type: "session", version: 3, id: this.sessionId, timestamp, cwd, parentSession: undefined });
	}
	_generateId() {
		// pi: randomUUID().slice(0, 8), retried on collision (up to 100 times, then a full UUID)
		for (let i = 0; i < 100; i++) {
			const id = this.rng.hex(8);
			if (!this.byId.has(id)) return id;
		}
		return randomUUID();
	}
	_write(obj) {
		const line = `${JSON.stringify(obj)}\n`;
		this.chunks.push(line);
		this.chunkLen += line.length;
		this.bytes += Buffer.byteLength(line, "utf8");
		if (this.chunkLen >= 8 * MIB) this._flush();
	}
	_flush() {
		if (this.chunks.length === 0) return;
		writeSync(this.fd, this.chunks.join(""));
		this.chunks = [];
		this.chunkLen = 0;
	}
	_append(entry) {
		this.byId.add(entry.id);
		this.leafId = entry.id;
		this.entries++;
		this._write(entry);
	}
	_base() {
		return { id: this._generateId(), parentId: this.leafId, timestamp: this.clock.iso() };
	}
	appendMessage(message) {
		const b = this._base();
		this._append({ type: "message", id: b.id, parentId: b.parentId, timestamp: b.timestamp, message });
		return b.id;
	}
	appendThinkingLevelChange(thinkingLevel) {
		const b = this._base();
		this._append({ type: "thinking_level_change", ...b, thinkingLevel });
		return b.id;
	}
	appendModelChange(provider, modelId) {
		const b = this._base();
		this._append({ type: "model_change", ...b, provider, modelId });
		return b.id;
	}
	appendCompaction(summary, firstKeptEntryId, tokensBefore, details, fromHook) {
		const b = this._base();
		this._append({ type: "compaction", ...b, summary, firstKeptEntryId, tokensBefore, details, fromHook });
		return b.id;
	}
	appendCustomEntry(customType, data) {
		const b = this._base();
		this._append({ type: "custom", customType, data, ...b });
		return b.id;
	}
	appendSessionInfo(name) {
		const b = this._base();
		this._append({ type: "session_info", ...b, name: name.trim() });
		return b.id;
	}
	appendCustomMessageEntry(customType, content, display, details) {
		const b = this._base();
		this._append({ type: "custom_message", customType, content, display, details, ...b });
		return b.id;
	}
	appendLabelChange(targetId, label) {
		if (!this.byId.has(targetId)) throw new Error(`Entry ${targetId} not found`);
		const b = this._base();
		this._append({ type: "label", ...b, targetId, label });
		return b.id;
	}
	branch(branchFromId) {
		if (!this.byId.has(branchFromId)) throw new Error(`Entry ${branchFromId} not found`);
		this.leafId = branchFromId;
	}
	resetLeaf() {
		this.leafId = null;
	}
	branchWithSummary(branchFromId, summary, details, fromHook) {
		if (branchFromId !== null && !this.byId.has(branchFromId)) throw new Error(`Entry ${branchFromId} not found`);
		this.leafId = branchFromId;
		const entry = {
			type: "branch_summary",
			id: this._generateId(),
			parentId: branchFromId,
			timestamp: this.clock.iso(),
			fromId: branchFromId ?? "root",
			summary,
			details,
			fromHook,
		};
		this._append(entry);
		return entry.id;
	}
	getLeafId() {
		return this.leafId;
	}
	close() {
		this._flush();
		closeSync(this.fd);
		return this.path;
	}
}

function findPiModules() {
	const here = dirname(fileURLToPath(import.meta.url));
	const cands = [];
	const env = process.env.PI_LSP_PI_MODULES;
	if (env) cands.push(env, join(env, "node_modules"));
	cands.push(join(here, "node_modules"));
	const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
	cands.push(join(cacheHome, "pi-lsp", "npm", "node_modules"));
	for (const c of cands) if (existsSync(join(c, PI_PACKAGE, "package.json"))) return resolve(c);
	return null;
}

/** Drives pi's own SessionManager; byte/entry counts are tracked for the stop rule. */
async function makePiSession({ cwd, out }) {
	const modules = findPiModules();
	if (!modules) die(`--backend pi: cannot find ${PI_PACKAGE} (set PI_LSP_PI_MODULES, or npm ci in bench/)`);
	const sm = await import(pathToFileURL(join(modules, PI_PACKAGE, "dist", "core", "session-manager.js")).href);
	const dir = out.dir ?? mkdtempSync(join(tmpdir(), "pi-gen-"));
	return new PiSession(sm.SessionManager.create(cwd, dir), out, dir);
}

/** Forwards to pi's SessionManager (always called on the manager itself). */
class PiSession {
	constructor(mgr, out, dir) {
		this.mgr = mgr;
		this.out = out;
		this.dir = dir;
		this.entries = 0;
		for (const name of [
			"appendMessage",
			"appendThinkingLevelChange",
			"appendModelChange",
			"appendCompaction",
			"appendCustomEntry",
			"appendSessionInfo",
			"appendCustomMessageEntry",
			"appendLabelChange",
			"branchWithSummary",
		]) {
			this[name] = (...args) => {
				const id = mgr[name](...args);
				this.entries++;
				return id;
			};
		}
	}
	branch(id) {
		this.mgr.branch(id);
	}
	resetLeaf() {
		this.mgr.resetLeaf();
	}
	getLeafId() {
		return this.mgr.getLeafId();
	}
	get bytes() {
		const f = this.mgr.getSessionFile();
		return f && existsSync(f) ? statSync(f).size : 0;
	}
	close() {
		const f = this.mgr.getSessionFile();
		if (this.out.dir) return f;
		try {
			renameSync(f, this.out.file);
		} catch {
			copyFileSync(f, this.out.file);
		}
		rmSync(this.dir, { recursive: true, force: true });
		return this.out.file;
	}
}

// ---------------------------------------------------------------------------
// The conversation
// ---------------------------------------------------------------------------

const MODELS = [
	{ api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", price: [3, 15, 0.3, 3.75], callId: (r) => `toolu_01${r.alnum(22)}` },
	{ api: "anthropic-messages", provider: "anthropic", model: "claude-opus-4-5", price: [5, 25, 0.5, 6.25], callId: (r) => `toolu_01${r.alnum(22)}` },
	{ api: "openai-responses", provider: "openai", model: "gpt-5.1-codex", price: [1.25, 10, 0.125, 0], callId: (r) => `call_${r.alnum(24)}|fc_${r.hex(48)}` },
];
const THINKING = ["off", "minimal", "low", "medium", "high"];

class Conversation {
	constructor({ session, rng, content, clock, images }) {
		this.s = session;
		this.rng = rng;
		this.t = content;
		this.clock = clock;
		this.images = images;
		this.model = MODELS[0];
		this.thinking = "medium";
		// The current branch, root first: { id, kind } (kind: user | assistant | end | other)
		this.path = [];
		this.ends = []; // indices in path of the last message of each turn
		this.lastCompaction = -1; // index in path of the last compaction on this branch
		this.contextTokens = 0;
		this.turn = 0;
		this.stats = { turns: 0, branches: 0, branchSummaries: 0, compactions: 0, labels: 0, images: 0, toolCalls: 0 };
	}
	push(id, kind) {
		if (kind === "end") this.ends.push(this.path.length);
		this.path.push({ id, kind });
		return id;
	}
	usage(input, output, cacheRead, cacheWrite) {
		const [pi, po, pr, pw] = this.model.price;
		const cost = {
			input: (input * pi) / 1e6,
			output: (output * po) / 1e6,
			cacheRead: (cacheRead * pr) / 1e6,
			cacheWrite: (cacheWrite * pw) / 1e6,
		};
		cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
		return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
	}
	start() {
		this.push(this.s.appendModelChange(this.model.provider, this.model.model), "other");
		this.push(this.s.appendThinkingLevelChange(this.thinking), "other");
	}
	imageBlock() {
		this.stats.images++;
		return { type: "image", data: this.t.image(200 * 1024, 2 * 1024 * 1024), mimeType: "image/png" };
	}
	userMessage() {
		const r = this.rng;
		this.clock.advance(r.logInt(3000, 600000));
		let content;
		const text = r.chance(0.2) ? this.t.markdown(r.logInt(200, 4000)) : this.t.prose(r.logInt(20, 400));
		if (this.images && r.chance(0.015)) content = [{ type: "text", text }, this.imageBlock()];
		else if (r.chance(0.5)) content = [{ type: "text", text }];
		else content = text;
		const message = { role: "user", content, timestamp: this.clock.ms };
		this.clock.advance(r.int(1, 5));
		return this.push(this.s.appendMessage(message), "user");
	}
	toolCall() {
		const r = this.rng;
		const name = r.pick(["read", "read", "read", "bash", "bash", "edit", "edit", "write"]);
		const path = r.pick(FILES);
		let args;
		if (name === "read") {
			args = this.images && r.chance(0.008) ? { path: `assets/screenshot-${r.int(1, 99)}.png` } : { path };
			if (r.chance(0.3)) args.offset = r.int(1, 2000);
			if (r.chance(0.3)) args.limit = r.pick([50, 100, 200, 400]);
		} else if (name === "bash") args = { command: r.pick(COMMANDS) };
		else if (name === "edit") args = { path, oldText: this.t.codeLines(r.logInt(1, 30)), newText: this.t.codeLines(r.logInt(1, 40)) };
		else args = { path, content: this.t.codeLines(r.logInt(10, 600)) };
		const block = { type: "toolCall", id: this.model.callId(r), name, arguments: args };
		if (r.chance(0.01)) block.partialJson = JSON.stringify(args).slice(0, r.int(5, 40));
		return block;
	}
	toolResultMessage(call) {
		const r = this.rng;
		let content;
		let details;
		let isError = false;
		const a = call.arguments;
		if (call.name === "read") {
			if (a.path.endsWith(".png")) content = [{ type: "text", text: "Read image file [image/png]" }, this.imageBlock()];
			else {
				const big = r.chance(0.1);
				content = [{ type: "text", text: this.t.codeLines(big ? r.logInt(400, 2000) : r.logInt(5, 300)) }];
			}
		} else if (call.name === "bash") {
			if (r.chance(0.15)) {
				isError = true;
				details = {};
				content = [{ type: "text", text: `${this.t.prose(r.logInt(40, 1500))}\n\nCommand exited with code ${r.int(1, 2)}` }];
			} else {
				content = [{ type: "text", text: r.chance(0.5) ? this.t.codeLines(r.logInt(1, 200)) : this.t.prose(r.logInt(10, 3000)) }];
			}
		} else if (call.name === "edit") {
			if (r.chance(0.1)) {
				isError = true;
				content = [{ type: "text", text: `Could not find the exact text in ${a.path}. The old text must match exactly including all whitespace and newlines.` }];
			} else {
				content = [{ type: "text", text: `Successfully replaced text in ${a.path}. Changed ${a.oldText.length} characters to ${a.newText.length} characters.` }];
				const ln = r.int(1, 900);
				const diff = [
					"     ...",
					...a.oldText.split("\n").slice(0, 20).map((l, i) => `-${String(ln + i).padStart(4)} ${l}`),
					...a.newText.split("\n").slice(0, 20).map((l, i) => `+${String(ln + i).padStart(4)} ${l}`),
					"     ...",
				].join("\n");
				details = { diff };
			}
		} else {
			content = [{ type: "text", text: `Successfully wrote ${Buffer.byteLength(a.content)} bytes to ${a.path}` }];
		}
		this.clock.advance(r.logInt(20, 20000));
		const message = { role: "toolResult", toolCallId: call.id, toolName: call.name, content, details, isError, timestamp: this.clock.ms };
		this.clock.advance(r.int(1, 3));
		return message;
	}
	assistantMessage(blocks, stopReason, extra) {
		const r = this.rng;
		const started = this.clock.ms;
		const output = blocks.reduce((n, b) => n + (b.text?.length ?? b.thinking?.length ?? JSON.stringify(b.arguments ?? "").length) / 4, 0) | 0;
		const cacheRead = this.contextTokens > 2000 ? Math.floor(this.contextTokens * 0.9) : 0;
		const usage = this.usage(r.int(1, 3000), Math.max(1, output), cacheRead, Math.max(0, this.contextTokens - cacheRead));
		this.clock.advance(r.logInt(800, 90000));
		const message = {
			role: "assistant",
			content: blocks,
			api: this.model.api,
			provider: this.model.provider,
			model: this.model.model,
			usage,
			stopReason,
			timestamp: started,
			...extra,
		};
		return message;
	}
	thinkingBlock() {
		const r = this.rng;
		const b = { type: "thinking", thinking: this.t.prose(r.logInt(60, 4000)) };
		if (this.model.provider === "anthropic") b.thinkingSignature = this.t.base64(r.logInt(200, 2400));
		return b;
	}
	/** One user turn: user message, 0..n tool rounds, a final answer. */
	doTurn() {
		const r = this.rng;
		this.stats.turns++;
		this.userMessage();
		const rounds = r.chance(0.25) ? 0 : r.logInt(1, 12);
		for (let i = 0; i < rounds; i++) {
			const blocks = [];
			if (this.thinking !== "off" && r.chance(0.6)) blocks.push(this.thinkingBlock());
			if (r.chance(0.5)) blocks.push({ type: "text", text: this.t.prose(r.logInt(20, 300)) });
			const calls = [];
			const n = r.chance(0.7) ? 1 : r.int(2, 4);
			for (let k = 0; k < n; k++) calls.push(this.toolCall());
			blocks.push(...calls);
			this.stats.toolCalls += n;
			this.push(this.s.appendMessage(this.assistantMessage(blocks, "toolUse")), "assistant");
			for (const call of calls) {
				const msg = this.toolResultMessage(call);
				this.contextTokens += JSON.stringify(msg.content).length / 4;
				this.push(this.s.appendMessage(msg), "tool");
			}
		}
		// Final answer (sometimes aborted / errored / cut at max tokens)
		const x = r.next();
		let msg;
		if (x < 0.03) msg = this.assistantMessage([], "aborted", { errorMessage: "Request was aborted." });
		else if (x < 0.05) msg = this.assistantMessage([{ type: "text", text: this.t.prose(r.logInt(10, 200)) }], "error", { errorMessage: "Overloaded (529)" });
		else {
			const blocks = [];
			if (this.thinking !== "off" && r.chance(0.5)) blocks.push(this.thinkingBlock());
			blocks.push({ type: "text", text: this.t.markdown(r.logInt(100, 6000)) });
			msg = this.assistantMessage(blocks, x < 0.07 ? "length" : "stop");
		}
		this.contextTokens += JSON.stringify(msg.content).length / 4 + 200;
		this.push(this.s.appendMessage(msg), "end");
	}
	/** Things that happen between turns. */
	interlude() {
		const r = this.rng;
		if (r.chance(0.02)) {
			this.model = r.pick(MODELS);
			this.push(this.s.appendModelChange(this.model.provider, this.model.model), "other");
		}
		if (r.chance(0.02)) {
			this.thinking = r.pick(THINKING);
			this.push(this.s.appendThinkingLevelChange(this.thinking), "other");
		}
		if (r.chance(0.04) && this.path.length > 0) {
			const target = this.path[r.int(Math.max(0, this.path.length - 60), this.path.length - 1)].id;
			this.stats.labels++;
			this.push(this.s.appendLabelChange(target, r.chance(0.15) ? undefined : `${r.pick(["checkpoint", "good", "bug", "try", "wip"])}-${r.int(1, 999)}`), "other");
		}
		if (r.chance(0.01)) this.push(this.s.appendSessionInfo(this.t.prose(r.int(20, 60)).slice(0, 60)), "other");
		if (r.chance(0.03)) this.push(this.s.appendCustomEntry(r.pick(["my-extension", "todo-tracker", "plan-mode"]), { count: r.int(0, 100), at: this.clock.ms }), "other");
		if (r.chance(0.02)) {
			this.push(this.s.appendCustomMessageEntry("my-extension", r.chance(0.5) ? this.t.prose(r.logInt(20, 400)) : [{ type: "text", text: this.t.prose(r.logInt(20, 400)) }], r.chance(0.7), r.chance(0.5) ? { t: r.int(0, 99) } : undefined), "other");
		}
		if (r.chance(0.03)) {
			this.clock.advance(r.logInt(1000, 60000));
			const cancelled = r.chance(0.05);
			const message = {
				role: "bashExecution",
				command: r.pick(COMMANDS),
				output: r.chance(0.5) ? this.t.codeLines(r.logInt(1, 100)) : this.t.prose(r.logInt(10, 2000)),
				exitCode: cancelled ? undefined : r.chance(0.8) ? 0 : 1,
				cancelled,
				truncated: false,
				timestamp: this.clock.ms,
			};
			if (r.chance(0.1)) message.excludeFromContext = true;
			this.push(this.s.appendMessage(message), "other");
		}
		// Branching: jump back to the end of an earlier turn on this branch.
		const e = this.ends;
		if (e.length > 3 && r.chance(0.06)) {
			const k = e[r.int(Math.max(0, e.length - 30), e.length - 2)];
			const target = this.path[k].id;
			this.path.length = k + 1;
			while (e.length > 0 && e[e.length - 1] > k) e.pop();
			if (this.lastCompaction > k) this.lastCompaction = -1;
			this.contextTokens = Math.min(this.contextTokens, 5000 + k * 300);
			if (r.chance(0.4)) {
				this.stats.branchSummaries++;
				this.clock.advance(r.logInt(2000, 30000));
				this.push(this.s.branchWithSummary(target, `The user explored a different approach: ${this.t.prose(r.logInt(100, 1500))}`, r.chance(0.5) ? { readFiles: [r.pick(FILES)], modifiedFiles: [] } : undefined), "other");
			} else {
				this.stats.branches++;
				this.s.branch(target);
			}
		}
		// Compaction when the simulated context grows large.
		if (this.contextTokens > 150000) this.compact();
	}
	compact() {
		const r = this.rng;
		// keep the last few turns: first kept entry = a user message after the previous compaction
		const users = [];
		for (let i = Math.max(0, this.lastCompaction + 1); i < this.path.length; i++) if (this.path[i].kind === "user") users.push(i);
		if (users.length < 2) return;
		const keep = users[Math.max(1, users.length - r.int(1, 4))];
		this.clock.advance(r.logInt(5000, 60000));
		const summary = `## Goal\n${this.t.prose(r.logInt(100, 400))}\n\n## Progress\n${this.t.markdown(r.logInt(500, 4000))}\n\n## Next steps\n${this.t.prose(r.logInt(100, 600))}`;
		const id = this.s.appendCompaction(summary, this.path[keep].id, Math.round(this.contextTokens), { readFiles: [r.pick(FILES), r.pick(FILES)], modifiedFiles: [r.pick(FILES)] });
		this.push(id, "compaction");
		this.lastCompaction = this.path.length - 1;
		this.contextTokens = 3000 + summary.length / 4;
		this.stats.compactions++;
	}
}

// ---------------------------------------------------------------------------

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const t0 = performance.now();
	const rng = makeRng(opts.seed);
	const clock = new Clock(Date.UTC(2025, 5, 2, 9, 0, 0) + Math.floor(rng.next() * 86400000));
	const corpus = buildCorpus(rng);
	const content = new Content(rng, corpus);
	const outAbs = resolve(opts.out);
	const isDir = opts.out.endsWith("/") || (existsSync(outAbs) && statSync(outAbs).isDirectory());
	if (isDir) mkdirSync(outAbs, { recursive: true });
	else mkdirSync(dirname(outAbs), { recursive: true });
	const out = isDir ? { dir: outAbs } : { file: outAbs };
	const session =
		opts.backend === "pi"
			? await makePiSession({ cwd: opts.cwd, out })
			: new FastSession({ cwd: opts.cwd, out, rng: makeRng(`${opts.seed}:ids`), clock });
	const conv = new Conversation({ session, rng, content, clock, images: opts.images });
	const target = opts.mb * MIB;
	conv.start();
	let lastReport = 0;
	while (session.bytes < target) {
		conv.doTurn();
		if (session.bytes < target) conv.interlude();
		if (!opts.quiet && session.bytes - lastReport > 50 * MIB) {
			lastReport = session.bytes;
			process.stderr.write(`  ${(session.bytes / MIB).toFixed(0)} MiB, ${session.entries} entries\n`);
		}
	}
	const path = session.close();
	const seconds = (performance.now() - t0) / 1000;
	const bytes = statSync(path).size;
	const summary = {
		path,
		backend: opts.backend,
		seed: opts.seed,
		bytes,
		mib: Math.round((bytes / MIB) * 100) / 100,
		entries: session.entries,
		lines: session.entries + 1,
		seconds: Math.round(seconds * 1000) / 1000,
		mib_per_s: Math.round((bytes / MIB / seconds) * 10) / 10,
		...conv.stats,
	};
	process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().catch((err) => {
	process.stderr.write(`generate.mjs: ${err?.stack ?? err}\n`);
	process.exit(1);
});
