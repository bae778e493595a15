#!/usr/bin/env node
// size_limits.mjs — where pi's session loader stops: one measurement per process.
//
//   node bench/size_limits.mjs MODULES PACKAGE (line|lines) SIZE [--utf8-2]
//
// SIZE is the file size in MiB, or in bytes with a "b" suffix (536870888b).
// Writes a session to a temporary directory — a header, then either one message line
// filling the file ("line": an embedded image, base64) or as many 64 MiB lines as make SIZE
// ("lines") — and loads it with that pi's own loadEntriesFromFile (0.73.1: readFileSync
// into one string, then split; 1.6: a 1 MiB read buffer and a `pending` string that
// grows until the next newline). --utf8-2 fills the payload with "é" (2 bytes, 1 UTF-16
// unit) instead of base64 characters. Prints one JSON line:
//   {pi_version, node, max_string_length, mode, bytes, ok, entries?, ms, error?}
// Run pi 0.73.1 with node 20+, pi 1.6 with node 22+ (~/.cache/pi-lsp/npm-pi16/node_modules/node).

import { constants } from "node:buffer";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [modules, pkg, mode, size, flag] = process.argv.slice(2);
const inBytes = String(size).endsWith("b");
const amount = Number(inBytes ? size.slice(0, -1) : size);
if (!modules || !pkg || !["line", "lines"].includes(mode) || !(amount > 0)) {
	process.stderr.write("usage: node size_limits.mjs MODULES PACKAGE (line|lines) SIZE [--utf8-2]\n");
	process.exit(2);
}
const version = JSON.parse(readFileSync(join(modules, pkg, "package.json"), "utf8")).version;
const sm = await import(pathToFileURL(join(modules, pkg, "dist", "core", "session-manager.js")).href);

const MIB = 1024 * 1024;
const total = inBytes ? amount : Math.round(amount * MIB);
const wide = flag === "--utf8-2";
const header = `${JSON.stringify({ type: "session", version: 3, id: "size-limits", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp" })}\n`;
let n = 0;
const entryAround = (payloadBytes, parentId) => {
	const id = `e${String(n++).padStart(7, "0")}`;
	const head = `{"type":"message","id":"${id}","parentId":${JSON.stringify(parentId)},"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"image","data":"`;
	const tail = `","mimeType":"image/png"}],"timestamp":1}}\n`;
	return { id, head, tail, payload: Math.max(0, payloadBytes - head.length - tail.length) };
};

const dir = mkdtempSync(join(tmpdir(), "pi-size-"));
const file = join(dir, "session.jsonl");
const fd = openSync(file, "w");
let bytes = 0;
const write = (s) => {
	bytes += writeSync(fd, s);
};
const fill = (count) => {
	const chunk = wide ? "é".repeat(MIB / 2) : "A".repeat(MIB);
	const unit = wide ? 2 : 1;
	let left = count - (count % unit);
	while (left > 0) {
		const take = Math.min(left, MIB);
		write(take === MIB ? chunk : chunk.slice(0, take / unit));
		left -= take;
	}
};
try {
	write(header);
	const lineBytes = mode === "line" ? total - header.length : 64 * MIB;
	let parent = null;
	while (bytes < total) {
		const e = entryAround(Math.min(lineBytes, total - bytes), parent);
		write(e.head);
		fill(e.payload);
		write(e.tail);
		parent = e.id;
	}
	closeSync(fd);
	const out = { pi_version: version, node: process.version, max_string_length: constants.MAX_STRING_LENGTH, mode, utf8_2: wide, bytes };
	const t0 = performance.now();
	try {
		const entries = sm.loadEntriesFromFile(file);
		out.ok = entries.length > 0;
		out.entries = entries.length;
	} catch (err) {
		out.ok = false;
		out.error = `${err?.code ?? err?.name}: ${String(err?.message ?? err).slice(0, 160)}`;
	}
	out.ms = Math.round(performance.now() - t0);
	process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
