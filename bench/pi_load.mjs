#!/usr/bin/env node
// pi_load.mjs — load one session file exactly as pi does, once, as a whole process.
//
//   PI_LSP_PI_MODULES=/path/to/node_modules node bench/pi_load.mjs FILE
//
// Imports pi's own dist/core/session-manager.js (@mariozechner/pi-coding-agent), reads
// FILE, runs parseSessionEntries + migrateSessionEntries + buildSessionContext and
// prints {"entries", "messages"}: the whole-process counterpart of `pi-lsp check FILE`
// in bench/run.py (node start-up and module loading included, as for pi-lsp).

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const PI_PACKAGE = "@mariozechner/pi-coding-agent";
const env = process.env.PI_LSP_PI_MODULES;
const modules = [env, env && join(env, "node_modules")].find(
	(dir) => dir && existsSync(join(dir, PI_PACKAGE, "package.json")),
);
if (!modules || process.argv.length !== 3) {
	process.stderr.write("usage: PI_LSP_PI_MODULES=DIR node bench/pi_load.mjs FILE\n");
	process.exit(2);
}
const sm = await import(pathToFileURL(join(modules, PI_PACKAGE, "dist", "core", "session-manager.js")).href);
const entries = sm.parseSessionEntries(readFileSync(process.argv[2], "utf8"));
sm.migrateSessionEntries(entries);
const context = sm.buildSessionContext(entries.filter((e) => e.type !== "session"));
process.stdout.write(`${JSON.stringify({ entries: entries.length, messages: context.messages.length })}\n`);
