/**
 * pi-lsp's session doctor inside pi.
 *
 * - Before pi resumes a session (`session_before_switch`, reason "resume") or forks the
 *   current one (`session_before_fork`), the file is checked with `pi-lsp check --format
 *   json`. When a finding changes what pi sends or keeps (consequences.ts), one dialog says
 *   what is wrong and offers: repair and resume (`pi-lsp check --fix`, which keeps the
 *   byte-identical original as NAME.bak beside it), resume as is, cancel. A fork offers
 *   fork as is or cancel: the file being forked is the one pi has open, which is never
 *   written behind pi's back (`/doctor fix` repairs a copy instead).
 * - A check that takes longer than the time budget (1 s) lets the resume go on; the
 *   result then shows in the footer.
 * - After every start, resume or fork, the footer says "2 problems · /doctor" (or
 *   nothing); at startup a notice too.
 * - `/doctor` lists the findings with their lines and what pi does; `/doctor fix` repairs
 *   a copy of the session and switches to it (the original stays as it was).
 * - `/session-stats`: `pi-lsp stats` for this session and the sessions it was forked
 *   from, by model, with the context size now.
 * - Without a UI (print and JSON modes) nothing is asked: findings go to stderr.
 *
 * pi-lsp is run through `pi.exec`: `--pi-lsp PATH` (flag), else `$PI_LSP_PATH`, else
 * `pi-lsp` on PATH. When it is missing the extension says how to install it, once.
 */

import { constants, copyFileSync, existsSync, readFileSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { consequence, type Diagnostic } from "./consequences.ts";

const STATUS_KEY = "pi-lsp";
const INSTALL_HINT =
	"pi-lsp is not installed: `pipx install .` in a checkout of pi-lsp puts it on PATH (or name it with --pi-lsp PATH or $PI_LSP_PATH). The session doctor stays off until then.";
const REPAIR = "Repair and resume";
const AS_IS = "Resume as is";
const FORK_AS_IS = "Fork as is";
const CANCEL = "Cancel";

/** One finding of `pi-lsp check`, with what pi does about it (consequences.ts). */
interface Finding {
	line: number;
	code: string;
	severity: number;
	message: string;
	what?: string;
	/** Whether it changes what pi sends or keeps: worth a question. */
	changes: boolean;
}

/** What `pi-lsp check` found in one file, or why it could not say. */
type Report =
	| { findings: Finding[]; problems: Finding[]; backup?: string }
	| { error: string; missing: boolean };

/**
 * What outlives one extension instance (pi makes a new one after every switch or fork):
 * the checks in flight, whether the missing pi-lsp was already reported, repaired copies.
 */
interface Shared {
	pending: Map<string, Promise<Report>>;
	warnedMissing: boolean;
	/** Copies `/doctor fix` just repaired: switched to with no second question. */
	repaired: Set<string>;
}
const SHARED_KEY = Symbol.for("pi-lsp-doctor");

function shared(): Shared {
	const g = globalThis as unknown as Record<symbol, Shared | undefined>;
	g[SHARED_KEY] ??= { pending: new Map(), warnedMissing: false, repaired: new Set() };
	return g[SHARED_KEY];
}

/** The time a check may hold pi up before a resume goes on without it. */
function budgetMs(): number {
	const value = Number(process.env.PI_LSP_DOCTOR_BUDGET_MS);
	return Number.isFinite(value) && value >= 0 ? value : 1000;
}

function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** "1 problem changes what pi sends or keeps", "2 problems change ...". */
function changes(n: number): string {
	return `${plural(n, "problem")} ${n === 1 ? "changes" : "change"} what pi sends or keeps`;
}

function toFinding(d: Diagnostic): Finding {
	const pi = consequence(d);
	return {
		line: d.range.start.line + 1,
		code: d.code ?? "",
		severity: d.severity ?? 1,
		message: d.message,
		what: pi?.what,
		changes: pi?.changes ?? false,
	};
}

/** The findings in `pi-lsp check --format json` output (one file). */
function parseCheck(stdout: string): Finding[] {
	const doc = JSON.parse(stdout) as { files: { diagnostics: Diagnostic[] }[] };
	return doc.files.flatMap((f) => f.diagnostics.map(toFinding));
}

function describeProblem(f: Finding): string {
	return `line ${f.line}: ${f.code} ${f.message}`;
}

/** The one-paragraph summary a dialog or notice shows. */
function summary(file: string, problems: Finding[]): string {
	const first = problems[0];
	return [
		`pi-lsp: ${changes(problems.length)} in ${basename(file)}.`,
		`First, ${describeProblem(first)}`,
		`→ ${first.what}.`,
	].join("\n");
}

function footer(problems: Finding[]): string | undefined {
	return problems.length ? `${plural(problems.length, "problem")} · /doctor` : undefined;
}

const SEVERITY = ["", "error", "warning", "info", "hint"];

/** `/doctor`'s text: every finding with its line and what pi does. */
function findingsText(file: string, findings: Finding[], problems: Finding[]): string {
	if (!findings.length) return `pi-lsp: no problems in ${basename(file)}.`;
	const lines = [`pi-lsp: ${plural(findings.length, "finding")} in ${file}`];
	for (const f of findings) {
		lines.push(`  line ${f.line}: ${f.code} ${SEVERITY[f.severity] ?? ""} ${f.message}`);
		if (f.what) lines.push(`    → ${f.what}`);
	}
	lines.push(
		problems.length
			? `${changes(problems.length)}: /doctor fix repairs a copy and switches to it.`
			: "None of them changes what pi sends or keeps.",
	);
	return lines.join("\n");
}

/** A sibling path for a repaired copy, named as pi names sessions: <timestamp>_<id>.jsonl. */
function copyPath(file: string): string {
	const name = basename(file, ".jsonl");
	const id = name.includes("_") ? name.slice(name.indexOf("_") + 1) : name;
	const now = new Date().toISOString().replace(/[:.]/g, "-");
	return join(dirname(file), `${now}_${id}.jsonl`);
}

export default function doctor(pi: ExtensionAPI) {
	let alive = true;

	pi.registerFlag("pi-lsp", { description: "path of the pi-lsp program", type: "string" });

	function command(): string {
		const flag = pi.getFlag("pi-lsp");
		return (typeof flag === "string" && flag) || process.env.PI_LSP_PATH || "pi-lsp";
	}

	async function piLsp(args: string[]) {
		const result = await pi.exec(command(), args);
		const missing = result.code !== 0 && !result.stdout && /ENOENT|EACCES/.test(result.stderr);
		return { ...result, missing };
	}

	/**
	 * `pi-lsp check --format json FILE`, at most one at a time per file: the session pi
	 * opens after a resume reuses the check its resume started (pi appends its thinking
	 * level and model on opening: that changes no finding).
	 */
	function check(file: string): Promise<Report> {
		const { pending } = shared();
		let report = pending.get(file);
		if (!report) {
			report = runCheck(file);
			pending.set(file, report);
			void report.finally(() => pending.delete(file));
		}
		return report;
	}

	function runCheck(file: string): Promise<Report> {
		// -j 1: one process, so a big file's check leaves a core to pi loading it
		return runReport(["check", "--format", "json", "--quiet", "-j", "1", file]);
	}

	/** Run a `pi-lsp check ... --format json` command; its findings, or why there are none. */
	async function runReport(args: string[]): Promise<Report> {
		const r = await piLsp(args);
		const what = `pi-lsp ${args.slice(0, 2).join(" ")}`;
		if (r.missing) return { error: INSTALL_HINT, missing: true };
		if (r.code !== 0 && r.code !== 1) return { error: `${what} failed: ${r.stderr.trim()}`, missing: false };
		try {
			const findings = parseCheck(r.stdout);
			// `check --fix` names the backup it kept ("original kept as NAME.bak") when it changed the file
			const backup = /original kept as (.+)$/m.exec(r.stderr)?.[1];
			return { findings, problems: findings.filter((f) => f.changes), backup };
		} catch {
			return { error: `${what} printed no report`, missing: false };
		}
	}

	/** Say (once for a missing pi-lsp) that the check could not run; never blocks pi. */
	function reportError(ctx: ExtensionContext, report: { error: string; missing: boolean }) {
		const state = shared();
		if (report.missing && state.warnedMissing) return;
		if (report.missing) state.warnedMissing = true;
		say(ctx, report.error, "warning");
	}

	function say(ctx: ExtensionContext, text: string, level: "info" | "warning" | "error") {
		if (ctx.hasUI) ctx.ui.notify(text, level);
		else process.stderr.write(`${text}\n`);
	}

	/** The check's result within the budget, or undefined when it takes longer. */
	async function checkWithin(file: string): Promise<Report | undefined> {
		let timer: ReturnType<typeof setTimeout> | undefined;
		const late = new Promise<undefined>((resolve) => {
			timer = setTimeout(() => resolve(undefined), budgetMs());
		});
		try {
			return await Promise.race([check(file), late]);
		} finally {
			clearTimeout(timer);
		}
	}

	/** Repair `file` in place (pi-lsp keeps NAME.bak); the problems left, or an error. */
	function repair(file: string): Promise<Report> {
		return runReport(["check", "--fix", "--format", "json", "--quiet", file]);
	}

	/** Before a resume: ask when the target has problems; repair, go on or cancel. */
	pi.on("session_before_switch", async (event, ctx) => {
		const file = event.targetSessionFile;
		if (event.reason !== "resume" || !file || shared().repaired.delete(file)) return undefined;
		const report = await checkWithin(file);
		if (!report) {
			say(ctx, `pi-lsp is still checking ${basename(file)}; the result will show in the footer.`, "info");
			return undefined;
		}
		if ("error" in report) {
			reportError(ctx, report);
			return undefined;
		}
		if (!report.problems.length) return undefined;
		if (!ctx.hasUI) {
			say(ctx, summary(file, report.problems), "warning");
			return undefined;
		}
		const choice = await ctx.ui.select(summary(file, report.problems), [REPAIR, AS_IS, CANCEL]);
		if (choice === AS_IS) return undefined;
		if (choice !== REPAIR) return { cancel: true };
		const repaired = await repair(file);
		if ("error" in repaired) {
			reportError(ctx, repaired);
			return { cancel: true };
		}
		const left = repaired.problems.length ? `; ${plural(repaired.problems.length, "problem")} left` : "";
		if (!repaired.backup) say(ctx, `pi-lsp has no safe repair for these problems; resuming ${basename(file)} as it is.`, "warning");
		else say(ctx, `pi-lsp repaired ${basename(file)} (the original is kept as ${basename(repaired.backup)})${left}.`, "info");
		return undefined;
	});

	/** Before a fork: the file forked is the one pi has open; ask, never write it. */
	pi.on("session_before_fork", async (_event, ctx) => {
		const file = ctx.sessionManager.getSessionFile();
		if (!file || !existsSync(file)) return undefined;
		const report = await checkWithin(file);
		if (!report || "error" in report || !report.problems.length) return undefined;
		if (!ctx.hasUI) {
			say(ctx, summary(file, report.problems), "warning");
			return undefined;
		}
		const title = `${summary(file, report.problems)}\nThe fork carries the problems on its path; /doctor fix repairs a copy.`;
		const choice = await ctx.ui.select(title, [FORK_AS_IS, CANCEL]);
		return choice === FORK_AS_IS ? undefined : { cancel: true };
	});

	/** After a start, resume or fork: the health of the session pi opened, in the footer. */
	pi.on("session_start", (event, ctx) => {
		const file = ctx.sessionManager.getSessionFile();
		if (!file || !existsSync(file)) return;
		void check(file)
			.then((found) => {
				if (!alive) return;
				if ("error" in found) return reportError(ctx, found);
				if (ctx.hasUI) ctx.ui.setStatus(STATUS_KEY, footer(found.problems));
				if (event.reason === "startup" && found.problems.length) {
					say(ctx, `${summary(file, found.problems)}\n/doctor lists them, /doctor fix repairs a copy.`, "warning");
				}
			})
			.catch(() => undefined); // a context pi replaced meanwhile: nothing to show it on
	});

	pi.on("session_shutdown", () => {
		alive = false;
	});

	pi.registerCommand("doctor", {
		description: "pi-lsp: this session's problems (/doctor fix: repair a copy and switch to it)",
		getArgumentCompletions: (prefix: string) =>
			"fix".startsWith(prefix) ? [{ value: "fix", label: "fix", description: "repair a copy and switch to it" }] : null,
		handler: async (args, ctx) => {
			const file = ctx.sessionManager.getSessionFile();
			if (!file || !existsSync(file)) return say(ctx, "pi-lsp: this session has no file yet.", "info");
			if (args.trim() === "fix") return fixCopy(file, ctx);
			if (args.trim()) return say(ctx, "usage: /doctor [fix]", "warning");
			const report = await check(file);
			if ("error" in report) return say(ctx, report.error, "warning");
			if (ctx.hasUI) ctx.ui.setStatus(STATUS_KEY, footer(report.problems));
			say(ctx, findingsText(file, report.findings, report.problems), report.problems.length ? "warning" : "info");
		},
	});

	/** `/doctor fix`: repair a copy of the open session and switch to it. */
	async function fixCopy(file: string, ctx: ExtensionCommandContext) {
		await ctx.waitForIdle();
		const found = await check(file);
		if ("error" in found) return say(ctx, found.error, "warning");
		if (!found.problems.length) return say(ctx, `pi-lsp: nothing to repair in ${basename(file)}.`, "info");
		const copy = copyPath(file);
		try {
			copyFileSync(file, copy, constants.COPYFILE_EXCL);
		} catch (error) {
			return say(ctx, `pi-lsp: cannot copy the session: ${(error as Error).message}`, "error");
		}
		const repaired = await repair(copy);
		if ("error" in repaired || !repaired.backup) {
			unlinkSync(copy); // our own byte copy of the untouched original
			const why = "error" in repaired ? repaired.error : "pi-lsp has no safe repair for these problems";
			return say(ctx, `${why}; ${basename(file)} is unchanged.`, "warning");
		}
		dropOwnBackup(file, repaired.backup);
		const left = repaired.problems.length ? ` ${plural(repaired.problems.length, "problem")} left.` : "";
		const note = `pi-lsp repaired a copy: now in ${basename(copy)}; ${basename(file)} is unchanged.${left}`;
		shared().repaired.add(copy);
		await ctx.switchSession(copy, { withSession: async (next) => next.ui.notify(note, "info") });
	}

	/** The copy's backup is a byte copy of the untouched original: not worth keeping twice. */
	function dropOwnBackup(original: string, backup: string) {
		if (readFileSync(backup).equals(readFileSync(original))) unlinkSync(backup);
	}

	pi.registerCommand("session-stats", {
		description: "pi-lsp stats: this session's cost and tokens by model (forks counted once), context size now",
		handler: async (_args, ctx) => {
			const file = ctx.sessionManager.getSessionFile();
			if (!file || !existsSync(file)) return say(ctx, "pi-lsp: this session has no file yet.", "info");
			const files = [file, ...ancestors(ctx)];
			const r = await piLsp(["stats", "--format", "json", "--by", "model", ...files]);
			if (r.missing) return say(ctx, INSTALL_HINT, "warning");
			if (r.code !== 0) return say(ctx, `pi-lsp stats failed: ${r.stderr.trim()}`, "warning");
			say(ctx, statsText(JSON.parse(r.stdout) as Stats, files, ctx), "info");
		},
	});
}

/** The sessions this one was forked from (header parentSession, then theirs), that exist. */
function ancestors(ctx: ExtensionContext): string[] {
	const out: string[] = [];
	let parent = ctx.sessionManager.getHeader()?.parentSession;
	while (parent && existsSync(parent) && !out.includes(parent) && out.length < 32) {
		out.push(parent);
		parent = headerParent(parent);
	}
	return out;
}

function headerParent(file: string): string | undefined {
	try {
		const first = readFileSync(file, "utf8").split("\n", 1)[0];
		const header = JSON.parse(first) as { parentSession?: unknown };
		return typeof header.parentSession === "string" ? header.parentSession : undefined;
	} catch {
		return undefined;
	}
}

/** The part of `pi-lsp stats --format json` shown here. */
interface Totals {
	userMessages: number;
	assistantMessages: number;
	toolCalls: number;
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	cost: number;
}
interface Stats {
	total: Totals;
	groups: (Totals & { key: string })[];
	files: { path: string; total: Totals }[];
}

function tokens(t: Totals): string {
	return `${t.input} in, ${t.output} out, ${t.cacheRead} cache read, ${t.cacheWrite} cache write`;
}

function money(n: number): string {
	return `$${n.toFixed(4)}`;
}

/** `/session-stats`' text. */
function statsText(stats: Stats, files: string[], ctx: ExtensionContext): string {
	const own = stats.files.find((f) => f.path === files[0])?.total ?? stats.total;
	const lines = [`pi-lsp stats: ${basename(files[0])}`];
	const forked = files.length > 1;
	const mine = forked ? "  this session's own entries (not those it copied when forked)" : "  this session";
	lines.push(`${mine}: ${own.userMessages} user, ${own.assistantMessages} assistant, ${own.toolCalls} tool calls`);
	lines.push(`    ${tokens(own)}; ${money(own.cost)}`);
	if (forked) lines.push(`  with the ${plural(files.length - 1, "session")} it was forked from, each entry counted once, by model:`);
	else lines.push("  by model:");
	for (const g of stats.groups) lines.push(`    ${g.key}: ${tokens(g)}; ${money(g.cost)}`);
	if (forked) lines.push(`    in all: ${money(stats.total.cost)}`);
	const usage = ctx.getContextUsage();
	const now = usage?.tokens == null ? "unknown (no model or no turn yet)" : `${usage.tokens} tokens`;
	const window = usage?.contextWindow ? ` of ${usage.contextWindow}` : "";
	lines.push(`  context now: ${now}${window}`);
	return lines.join("\n");
}
