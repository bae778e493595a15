/**
 * What pi does with each pi-lsp finding: the one table that decides which findings are
 * worth a question before pi resumes or forks a session.
 *
 * Every diagnostic code of pi-lsp (SPEC §2) is listed, with when it changes what pi sends
 * to the provider or keeps of the file, and what pi then does:
 *   "always"  whatever its severity;
 *   "error"   only at severity error (pi-lsp grades these codes by pi's consequence:
 *             error = pi breaks or loses data, lower = pi loads it as is);
 *   "never"   cosmetic for pi (it loads and sends the session as the user expects).
 * tests/pi/test_pi_package.py checks that this table names every code pi-lsp has.
 */

export type When = "always" | "error" | "never";

export const CONSEQUENCES: Record<string, readonly [When, string]> = {
	PI001: ["always", "pi skips the line, and the entry appended onto a torn line with it"],
	PI002: ["always", "pi drops the cut-off last line"],
	PI003: ["always", "pi skips the line"],
	PI004: ["never", "pi keeps the entry but does not send it"],
	PI005: ["never", "pi ignores the blank line"],
	PI100: ["always", "pi refuses the file and starts an empty session"],
	PI101: ["always", "pi misreads the second header as an entry"],
	PI102: ["error", "pi cannot read this session version"],
	PI103: ["never", "pi migrates the session to v3 when it opens it"],
	PI104: ["never", "pi goes by the header's id"],
	PI105: ["always", "pi cannot load this layout"],
	PI200: ["error", "pi or pi-ai breaks on the entry or loses its data"],
	PI201: ["never", "pi loads the turn as it is"],
	PI300: ["error", "pi loses the entry's place in the tree"],
	PI301: ["never", "pi loads the message as it is"],
	PI302: ["never", "pi ignores the index"],
	PI303: ["never", "pi migrates the entries again"],
	PI400: ["error", "pi cuts the path at the entry: everything before it is not sent"],
	PI401: ["always", "pi keeps one of the two entries and loses the other's branch"],
	PI402: ["always", "pi hangs walking the cycle"],
	PI403: ["never", "pi follows the link as it is"],
	PI410: ["never", "pi keeps only the compaction summary"],
	PI411: ["never", "pi ignores the label"],
	PI412: ["never", "pi keeps the summary as it is"],
	PI413: ["always", "pi migrates the compaction wrongly and loses the kept range"],
	PI414: ["never", "pi ignores the edit"],
	PI415: ["never", "the edit does nothing"],
	PI420: ["always", "providers reject the tool result that answers no call"],
	PI421: ["never", 'pi-ai answers the call with "No result provided"'],
	PI422: ["never", "pi sends both results"],
	PI423: ["always", "providers reject every request (a tool result not right after its call)"],
	PI424: ["always", "providers reject every request once this compaction is the newest"],
	PI425: ["always", 'pi answers the calls with "No result provided" and orphans the real results'],
	PI500: ["error", "pi cannot load a line this long"],
};

/** A diagnostic as `pi-lsp check --format json` prints it (LSP's Diagnostic shape). */
export interface Diagnostic {
	range: { start: { line: number; character: number } };
	severity?: number;
	code?: string;
	message: string;
}

/** What pi does with the finding `d`, and whether that changes what pi sends or keeps. */
export function consequence(d: Diagnostic): { what: string; changes: boolean } | undefined {
	const entry = d.code ? CONSEQUENCES[d.code] : undefined;
	if (!entry) return undefined;
	const [when, what] = entry;
	return { what, changes: when === "always" || (when === "error" && d.severity === 1) };
}
