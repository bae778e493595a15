// pi-lsp for VS Code: starts the pi-lsp language server for pi session files and adds
// a Session Tree view, a Context view, a session preview and commands on top of its
// workspace commands.
import * as path from 'path';
import * as vscode from 'vscode';
import {
    DidChangeConfigurationNotification,
    type DocumentSelector,
    ExecuteCommandRequest,
    type Executable,
    LanguageClient,
    type LanguageClientOptions,
    State,
} from 'vscode-languageclient/node';
import { registerChart } from './chart';
import { PreviewManager } from './preview';
import { registerProblemCount } from './problems';
import { COMMANDS, type ContextResult, type ForkResult, type TreeResult } from './protocol';
import {
    describe,
    notFoundMessage,
    serverCommand,
    startFailedMessage,
    wrongServerMessage,
} from './server';
import { ContextProvider, registerReveal, type SessionItem, SessionTreeProvider } from './views';

export const DEFAULT_SESSION_GLOB = '**/.pi/agent/sessions/**/*.jsonl';
const RESTART_KEYS = ['piLsp.server', 'piLsp.sessionGlobs'];
const SERVER_SETTING_KEYS = ['piLsp.severity', 'piLsp.largeLineThreshold', 'piLsp.outlineCap', 'piLsp.sessionsFolder'];

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let traceOutput: vscode.LogOutputChannel;
let selector: DocumentSelector = [];
let treeProvider: SessionTreeProvider;
let contextProvider: ContextProvider;
let treeView: vscode.TreeView<SessionItem>;
let contextView: vscode.TreeView<unknown>;
let contextEntry: string | null = null;
let previews: PreviewManager | undefined;

/** The settings the server reads (section "piLsp"): only what it understands, unset values left out. */
export function serverSettings(): Record<string, unknown> {
    const cfg = vscode.workspace.getConfiguration('piLsp');
    const out: Record<string, unknown> = { severity: cfg.get<Record<string, string>>('severity') ?? {} };
    const threshold = cfg.get<number | null>('largeLineThreshold');
    if (typeof threshold === 'number') {
        out.largeLineThreshold = threshold;
    }
    const cap = cfg.get<number | null>('outlineCap');
    if (typeof cap === 'number') {
        out.outlineCap = cap;
    }
    const folder = cfg.get<string | null>('sessionsFolder');
    if (typeof folder === 'string' && folder.trim()) {
        out.sessionsFolder = folder;
    }
    return out;
}

function sessionGlobs(): string[] {
    const extra = vscode.workspace.getConfiguration('piLsp').get<string[]>('sessionGlobs') ?? [];
    return [DEFAULT_SESSION_GLOB, ...extra.filter((g) => typeof g === 'string' && g.trim())];
}

function buildSelector(): DocumentSelector {
    // No language in the filter: a session stays a session whatever language the user maps
    // .jsonl to, and the built-in JSON Lines colouring is left alone.
    return sessionGlobs().flatMap((pattern) => [
        { scheme: 'file', pattern },
        { scheme: 'untitled', pattern },
    ]);
}

export function isSession(doc: vscode.TextDocument | undefined): boolean {
    return !!doc && vscode.languages.match(selector as vscode.DocumentSelector, doc) > 0;
}

function activeSessionDoc(): vscode.TextDocument | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    return isSession(doc) ? doc : undefined;
}

async function executeServerCommand<T>(command: string, args: unknown[]): Promise<T> {
    if (!client || client.state !== State.Running) {
        throw new Error('the pi-lsp server is not running');
    }
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
}

function uriString(doc: vscode.TextDocument): string {
    return client ? client.code2ProtocolConverter.asUri(doc.uri) : doc.uri.toString();
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
    const cmd = serverCommand();
    selector = buildSelector();
    if (!cmd.resolved) {
        const msg = notFoundMessage(cmd);
        output.error(msg);
        void showError(msg);
        return;
    }
    const serverOptions: Executable = {
        command: cmd.resolved,
        args: cmd.args,
        options: { env: { ...process.env, PYTHONUNBUFFERED: '1' } },
    };
    const clientOptions: LanguageClientOptions = {
        documentSelector: selector,
        outputChannel: output,
        // Traced only while this channel's log level is Trace (vscode-languageclient 10+);
        // piLsp.trace.server then picks messages/verbose.
        traceOutputChannel: traceOutput,
        initializationOptions: serverSettings(),
        initializationFailedHandler: (error) => {
            output.error(`initialize failed: ${String(error)}`);
            return false;
        },
        middleware: {
            workspace: {
                configuration: async (params, token, next) => {
                    const result = await next(params, token);
                    if (!Array.isArray(result)) {
                        return result;
                    }
                    return params.items.map((item, i) =>
                        item.section === 'piLsp' ? serverSettings() : result[i],
                    );
                },
            },
        },
    };
    output.info(`starting ${describe(cmd)} (resolved to ${cmd.resolved})`);
    const c = new LanguageClient('piLsp', 'pi-lsp', serverOptions, clientOptions);
    client = c;
    try {
        await c.start();
    } catch (error) {
        const msg = startFailedMessage(cmd, error);
        output.error(msg);
        void showError(msg);
        if (client === c) {
            client = undefined;
        }
        try {
            await c.dispose(2000);
        } catch {
            // already dead
        }
        return;
    }
    const info = c.initializeResult?.serverInfo;
    output.info(`server: ${info?.name ?? '?'} ${info?.version ?? ''}`);
    const wrong = wrongServerMessage(cmd, info);
    if (wrong) {
        output.warn(wrong);
        void showError(wrong);
    }
    context.subscriptions.push(
        c.onDidChangeState((e) => {
            if (e.newState === State.Running) {
                void refreshAll();
            }
        }),
    );
    await refreshAll();
    previews?.syncContext();
    previews?.refreshAll();
}

async function stopClient(): Promise<void> {
    const c = client;
    client = undefined;
    if (c) {
        try {
            await c.stop(3000);
        } catch (error) {
            output.warn(`stopping the server: ${String(error)}`);
        }
    }
}

async function showError(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output');
    if (choice === 'Open Settings') {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'piLsp.server');
    } else if (choice === 'Show Output') {
        output.show(true);
    }
}

async function refreshTree(): Promise<void> {
    const doc = activeSessionDoc();
    void vscode.commands.executeCommand('setContext', 'piLsp.sessionActive', !!doc || !!treeProvider.current);
    if (!doc) {
        return;
    }
    try {
        const result = await executeServerCommand<TreeResult>(COMMANDS.tree, [uriString(doc)]);
        treeProvider.set(doc.uri, result ?? undefined);
        treeView.description = path.basename(doc.uri.fsPath);
        treeView.message = undefined;
    } catch (error) {
        treeView.message = `Session tree unavailable: ${error instanceof Error ? error.message : String(error)}`;
    }
}

async function refreshContext(): Promise<void> {
    const cur = treeProvider.current;
    if (!cur) {
        contextProvider.set(undefined, undefined);
        return;
    }
    try {
        const result = await executeServerCommand<ContextResult>(COMMANDS.context, [
            cur.uri.toString(),
            contextEntry,
        ]);
        contextProvider.set(cur.uri, result ?? undefined);
        const node = contextEntry ? treeProvider.node(contextEntry) : undefined;
        contextView.description = node ? `from line ${node.line + 1} (${node.id})` : 'from the leaf';
        contextView.message = undefined;
    } catch (error) {
        contextView.message = `Context unavailable: ${error instanceof Error ? error.message : String(error)}`;
    }
}

async function refreshAll(): Promise<void> {
    await refreshTree();
    await refreshContext();
}

function debounce(fn: () => void, ms: number): () => void {
    let timer: NodeJS.Timeout | undefined;
    return () => {
        if (timer) {
            clearTimeout(timer);
        }
        timer = setTimeout(fn, ms);
    };
}

function entryFromArg(arg: unknown): string | undefined {
    if (arg && typeof arg === 'object' && 'node' in arg) {
        return (arg as SessionItem).node.id;
    }
    if (typeof arg === 'string') {
        return arg;
    }
    const editor = vscode.window.activeTextEditor;
    if (editor && isSession(editor.document)) {
        return treeProvider.nodeAtLine(editor.selection.active.line)?.id;
    }
    return undefined;
}

async function sessionDocForCommand(): Promise<vscode.TextDocument | undefined> {
    const doc = activeSessionDoc();
    if (doc) {
        return doc;
    }
    const cur = treeProvider.current;
    if (cur) {
        return vscode.workspace.openTextDocument(cur.uri);
    }
    void vscode.window.showWarningMessage('pi-lsp: open a pi session file first.');
    return undefined;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    output = vscode.window.createOutputChannel('pi-lsp', { log: true });
    traceOutput = vscode.window.createOutputChannel('pi-lsp Trace', { log: true });
    treeProvider = new SessionTreeProvider();
    contextProvider = new ContextProvider();
    treeView = vscode.window.createTreeView('piLsp.sessionTree', {
        treeDataProvider: treeProvider,
        showCollapseAll: true,
    });
    contextView = vscode.window.createTreeView('piLsp.context', { treeDataProvider: contextProvider });
    const refreshSoon = debounce(() => void refreshAll(), 400);
    const contextSoon = debounce(() => void refreshContext(), 250);
    previews = new PreviewManager({ extensionUri: context.extensionUri, isSession, uriString, executeServerCommand });

    context.subscriptions.push(
        output,
        traceOutput,
        treeView,
        contextView,
        registerReveal(),
        registerProblemCount(),
        registerChart({ activeSession: activeSessionDoc, uriString, executeServerCommand }),
        previews,
        treeView.onDidChangeSelection((e) => {
            const item = e.selection[0];
            if (item?.kind === 'entry') {
                contextEntry = item.node.id;
                contextSoon();
            }
        }),
        vscode.window.onDidChangeActiveTextEditor((editor) => {
            if (editor && isSession(editor.document)) {
                if (treeProvider.current?.uri.toString() !== editor.document.uri.toString()) {
                    contextEntry = null;
                }
                void refreshAll();
            }
        }),
        vscode.window.onDidChangeTextEditorSelection((e) => {
            if (!isSession(e.textEditor.document) || e.kind === undefined) {
                return;
            }
            const node = treeProvider.nodeAtLine(e.selections[0].active.line);
            if (node && node.id !== contextEntry) {
                contextEntry = node.id;
                contextSoon();
            }
        }),
        vscode.workspace.onDidChangeTextDocument((e) => {
            if (e.document === vscode.window.activeTextEditor?.document && isSession(e.document)) {
                refreshSoon();
            }
        }),
        vscode.workspace.onDidChangeConfiguration(async (e) => {
            if (RESTART_KEYS.some((k) => e.affectsConfiguration(k))) {
                await stopClient();
                await startClient(context);
            } else if (SERVER_SETTING_KEYS.some((k) => e.affectsConfiguration(k)) && client?.state === State.Running) {
                await client.sendNotification(DidChangeConfigurationNotification.type, {
                    settings: { piLsp: serverSettings() },
                });
                refreshSoon();
            }
        }),
        vscode.commands.registerCommand('piLsp.restartServer', async () => {
            await stopClient();
            await startClient(context);
            if (client?.state === State.Running) {
                void vscode.window.showInformationMessage('pi-lsp: server restarted.');
            }
        }),
        vscode.commands.registerCommand('piLsp.showOutput', () => output.show(true)),
        vscode.commands.registerCommand('piLsp.refreshTree', () => refreshAll()),
        vscode.commands.registerCommand('piLsp.showContext', async (arg?: unknown) => {
            contextEntry = entryFromArg(arg) ?? null;
            await refreshContext();
            await vscode.commands.executeCommand('piLsp.context.focus');
        }),
        vscode.commands.registerCommand('piLsp.migrate', async () => {
            const doc = await sessionDocForCommand();
            if (!doc) {
                return;
            }
            try {
                await executeServerCommand(COMMANDS.migrate, [uriString(doc)]);
                await refreshAll();
            } catch (error) {
                void vscode.window.showErrorMessage(`pi-lsp: migration failed: ${String(error)}`);
            }
        }),
        vscode.commands.registerCommand('piLsp.fork', async (arg?: unknown) => {
            const doc = await sessionDocForCommand();
            if (!doc) {
                return;
            }
            const entryId = entryFromArg(arg) ?? treeProvider.current?.result.leafId ?? undefined;
            if (!entryId) {
                void vscode.window.showWarningMessage('pi-lsp: put the cursor on an entry to fork from.');
                return;
            }
            if (doc.isDirty) {
                await doc.save();
            }
            try {
                const result = await executeServerCommand<ForkResult>(COMMANDS.fork, [uriString(doc), entryId]);
                const forked = await vscode.workspace.openTextDocument(vscode.Uri.file(result.path));
                await vscode.window.showTextDocument(forked);
                void vscode.window.showInformationMessage(`pi-lsp: forked the path to ${entryId} into ${result.path}`);
            } catch (error) {
                void vscode.window.showErrorMessage(`pi-lsp: fork failed: ${String(error)}`);
            }
        }),
    );
    await startClient(context);
}

export async function deactivate(): Promise<void> {
    await stopClient();
}
