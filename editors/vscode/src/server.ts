// Locating the pi-lsp executable and explaining, in plain words, why it could not start.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';

/** The oldest server whose protocol (commands, settings) this extension speaks. */
export const MIN_SERVER_VERSION = '0.1.0';
export const SERVER_NAME = 'pi-lsp';

export interface ServerCommand {
    command: string;
    args: string[];
    /** Absolute path of `command` if it could be found, undefined otherwise. */
    resolved: string | undefined;
}

function expandHome(p: string): string {
    if (p === '~') {
        return os.homedir();
    }
    if (p.startsWith('~/') || p.startsWith('~\\')) {
        return path.join(os.homedir(), p.slice(2));
    }
    return p;
}

function expandWorkspaceFolder(p: string): string {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return folder ? p.replace(/\$\{workspaceFolder\}/g, folder) : p;
}

function isExecutableFile(p: string): boolean {
    try {
        const st = fs.statSync(p);
        if (!st.isFile()) {
            return false;
        }
        if (process.platform === 'win32') {
            return true;
        }
        fs.accessSync(p, fs.constants.X_OK);
        return true;
    } catch {
        return false;
    }
}

/** Find `command` like a shell would: a path is checked as is, a bare name on PATH. */
export function which(command: string): string | undefined {
    if (command.includes('/') || command.includes('\\')) {
        const p = path.resolve(command);
        return isExecutableFile(p) ? p : undefined;
    }
    const exts =
        process.platform === 'win32'
            ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')]
            : [''];
    for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
        if (!dir) {
            continue;
        }
        for (const ext of exts) {
            const candidate = path.join(dir, command + ext);
            if (isExecutableFile(candidate)) {
                return candidate;
            }
        }
    }
    return undefined;
}

export function serverCommand(): ServerCommand {
    const cfg = vscode.workspace.getConfiguration('piLsp');
    const raw = (cfg.get<string>('server.command') ?? '').trim() || SERVER_NAME;
    const command = expandWorkspaceFolder(expandHome(raw));
    const args = (cfg.get<string[]>('server.args') ?? []).map((a) =>
        expandWorkspaceFolder(expandHome(a)),
    );
    return { command, args, resolved: which(command) };
}

export function describe(cmd: ServerCommand): string {
    return [cmd.command, ...cmd.args].map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

/** Compare dotted versions numerically ("0.10.0" > "0.9.1"); pre-release suffixes are ignored. */
export function compareVersions(a: string, b: string): number {
    const parse = (v: string) => v.split(/[.+-]/).slice(0, 3).map((x) => parseInt(x, 10) || 0);
    const pa = parse(a);
    const pb = parse(b);
    for (let i = 0; i < 3; i++) {
        const d = (pa[i] ?? 0) - (pb[i] ?? 0);
        if (d !== 0) {
            return d;
        }
    }
    return 0;
}

const INSTALL_HINT =
    'Install it from a pi-lsp checkout with `pipx install .` (or `pip install .` in the Python ' +
    'environment you use), ' +
    'or set "piLsp.server.command" to the full path of `pi-lsp`, or to a Python interpreter with ' +
    '"piLsp.server.args": ["-m", "pi_lsp"].';

export function notFoundMessage(cmd: ServerCommand): string {
    return `pi-lsp: the language server command "${cmd.command}" was not found. ${INSTALL_HINT}`;
}

export function startFailedMessage(cmd: ServerCommand, error: unknown): string {
    const reason = error instanceof Error ? error.message : String(error);
    return (
        `pi-lsp: the language server did not start with \`${describe(cmd)}\` (${reason}). ` +
        `Run that command in a terminal: it should wait for input without printing an error ` +
        `(a Python interpreter needs pi-lsp installed: \`${cmd.command} -m pip install /path/to/pi-lsp\`). ` +
        'See the pi-lsp output for its error output.'
    );
}

export function wrongServerMessage(
    cmd: ServerCommand,
    info: { name: string; version?: string } | undefined,
): string | undefined {
    if (!info) {
        return (
            `pi-lsp: \`${describe(cmd)}\` started a language server that did not say its name; ` +
            `expected ${SERVER_NAME} ${MIN_SERVER_VERSION} or newer. ${INSTALL_HINT}`
        );
    }
    if (info.name !== SERVER_NAME) {
        return (
            `pi-lsp: \`${describe(cmd)}\` started "${info.name}", not ${SERVER_NAME}. ` +
            'Check "piLsp.server.command" and "piLsp.server.args".'
        );
    }
    if (info.version && compareVersions(info.version, MIN_SERVER_VERSION) < 0) {
        return (
            `pi-lsp: the server is version ${info.version}, this extension needs ${MIN_SERVER_VERSION} ` +
            `or newer. Reinstall it from an up-to-date pi-lsp checkout: \`pipx install --force .\` ` +
            '(or `pip install .` in its Python environment).'
        );
    }
    return undefined;
}
