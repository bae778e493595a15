// The session preview: "Open Preview to the Side" for a pi session, a webview with the
// conversation along one leaf as the server renders it (`pi-lsp.preview`, format html). The
// extension only shows it: the page around the server's fragment (strict CSP, theme colours,
// script and stylesheet from the extension, nothing remote) and the following both ways:
// a click on an item reveals its line, moving the cursor scrolls the preview to the item at or
// above it. A long conversation comes whole around one line, the rest as stubs: when stubs
// come into view the page asks for the part around them. It re-renders while the file changes (typing, or pi appending on disk) and a
// branch link renders another leaf.
import * as crypto from 'crypto';
import * as path from 'path';
import * as vscode from 'vscode';
import { COMMANDS, type PreviewOptions, type PreviewResult } from './protocol';

export const PREVIEW_VIEW = 'piLsp.preview';
const SESSION_EDITOR_KEY = 'piLsp.sessionEditor';
const REFRESH_DELAY_MS = 300;

/** What the preview needs from the extension: which documents are sessions, and the server. */
export interface PreviewHost {
    extensionUri: vscode.Uri;
    isSession(doc: vscode.TextDocument | undefined): boolean;
    uriString(doc: vscode.TextDocument): string;
    executeServerCommand<T>(command: string, args: unknown[]): Promise<T>;
}

/** Messages from the webview's script (webview/preview.ts). */
type FromWebview =
    | { type: 'ready' }
    | { type: 'reveal'; line: number }
    | { type: 'around'; line: number }
    | { type: 'leaf'; leaf: string | null };

/** The messages the webview's script understands. */
type ToWebview =
    | {
          type: 'render';
          html: string;
          lines: number[];
          leafId: string | null;
          resumedLeafId: string | null;
          fileName: string;
      }
    | { type: 'error'; message: string }
    | { type: 'cursor'; line: number };

function errorText(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}

function isMessage(m: unknown): m is FromWebview {
    if (!m || typeof m !== 'object') {
        return false;
    }
    const msg = m as Record<string, unknown>;
    return (
        msg.type === 'ready' ||
        ((msg.type === 'reveal' || msg.type === 'around') &&
            typeof msg.line === 'number' &&
            Number.isInteger(msg.line) &&
            msg.line >= 0) ||
        (msg.type === 'leaf' && (typeof msg.leaf === 'string' || msg.leaf === null))
    );
}

/** The page around the server's fragment: everything local, scripts and styles by nonce only. */
export function previewPage(webview: vscode.Webview, extensionUri: vscode.Uri, title: string): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'out', 'preview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'preview.css'));
    const csp = [
        "default-src 'none'",
        `img-src ${webview.cspSource} data:`,
        `style-src ${webview.cspSource} 'nonce-${nonce}'`,
        `font-src ${webview.cspSource}`,
        `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" nonce="${nonce}" href="${style.toString()}">
<title>${escapeHtml(title)}</title>
</head>
<body>
<header id="pi-bar"></header>
<main id="pi-content"><p class="pi-status">Rendering the session…</p></main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

function escapeHtml(text: string): string {
    return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

/** One preview panel, bound to one session file. */
class SessionPreview {
    private leaf: string | null = null;
    /** The line a long conversation is rendered whole around (null: its end). */
    private around: number | null = null;
    private last: ToWebview | undefined;
    private ready = false;
    private pending = Promise.resolve();
    private timer: NodeJS.Timeout | undefined;
    private readonly disposables: vscode.Disposable[] = [];

    constructor(
        readonly uri: vscode.Uri,
        readonly panel: vscode.WebviewPanel,
        private readonly host: PreviewHost,
        onDispose: () => void,
    ) {
        const name = path.basename(uri.fsPath);
        panel.webview.options = {
            enableScripts: true,
            localResourceRoots: [
                vscode.Uri.joinPath(host.extensionUri, 'out'),
                vscode.Uri.joinPath(host.extensionUri, 'media'),
            ],
        };
        panel.webview.html = previewPage(panel.webview, host.extensionUri, `Preview ${name}`);
        this.disposables.push(
            panel.webview.onDidReceiveMessage((m: unknown) => isMessage(m) && void this.onMessage(m)),
            panel.onDidDispose(() => {
                this.dispose();
                onDispose();
            }),
        );
        if (uri.scheme === 'file') {
            // pi appends to the file: follow the disk even while the document is not reloaded.
            const watcher = vscode.workspace.createFileSystemWatcher(
                new vscode.RelativePattern(vscode.Uri.file(path.dirname(uri.fsPath)), path.basename(uri.fsPath)),
            );
            watcher.onDidChange(() => this.refreshSoon());
            this.disposables.push(watcher);
        }
        this.refresh();
    }

    /** Render again now (queued: one request at a time). */
    refresh(): void {
        this.pending = this.pending.then(() => this.draw()).catch(() => undefined);
    }

    /** Render again after a short quiet time (typing, appends). */
    refreshSoon(): void {
        if (this.timer) {
            clearTimeout(this.timer);
        }
        this.timer = setTimeout(() => this.refresh(), REFRESH_DELAY_MS);
    }

    /** Scroll the preview to the item at or above this 0-based line of the file. */
    follow(line: number): void {
        this.post({ type: 'cursor', line });
    }

    private post(message: ToWebview): void {
        if (message.type !== 'cursor') {
            this.last = message;
        }
        if (this.ready) {
            void this.panel.webview.postMessage(message);
        }
    }

    private async draw(): Promise<void> {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === this.uri.toString());
        const uri = doc ? this.host.uriString(doc) : this.uri.toString();
        const options: PreviewOptions = { leaf: this.leaf, format: 'html', around: this.around };
        let result: PreviewResult;
        try {
            result = await this.host.executeServerCommand<PreviewResult>(COMMANDS.preview, [uri, options]);
        } catch (error) {
            if (this.leaf !== null && /leaf|entry/i.test(errorText(error))) {
                // the chosen leaf is gone (the file changed): back to the leaf pi resumes
                this.leaf = null;
                return this.draw();
            }
            this.post({ type: 'error', message: `Session preview unavailable: ${errorText(error)}` });
            return;
        }
        this.post({
            type: 'render',
            html: result.html ?? '',
            lines: result.items.map((i) => i.line),
            leafId: result.leafId,
            resumedLeafId: result.resumedLeafId,
            fileName: path.basename(this.uri.fsPath),
        });
    }

    private async onMessage(message: FromWebview): Promise<void> {
        if (message.type === 'ready') {
            this.ready = true;
            if (this.last) {
                void this.panel.webview.postMessage(this.last);
            }
            const editor = this.editor();
            if (editor) {
                this.follow(editor.selection.active.line);
            }
        } else if (message.type === 'leaf') {
            this.leaf = message.leaf;
            this.around = null;
            this.refresh();
        } else if (message.type === 'around') {
            // stubs came into view (or the cursor's item is one): that part whole
            if (message.line !== this.around) {
                this.around = message.line;
                this.refresh();
            }
        } else {
            await this.reveal(message.line);
        }
    }

    /** The visible editor showing this session, if any. */
    private editor(): vscode.TextEditor | undefined {
        return vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.uri.toString());
    }

    private async reveal(line: number): Promise<void> {
        const column = this.editor()?.viewColumn ?? vscode.ViewColumn.One;
        const editor = await vscode.window.showTextDocument(this.uri, { viewColumn: column, preserveFocus: false });
        const at = new vscode.Position(Math.min(line, editor.document.lineCount - 1), 0);
        editor.selection = new vscode.Selection(at, at);
        editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }

    dispose(): void {
        if (this.timer) {
            clearTimeout(this.timer);
        }
        vscode.Disposable.from(...this.disposables).dispose();
        this.disposables.length = 0;
    }
}

/** The previews, one per session file, and what keeps them in step with the editors. */
export class PreviewManager implements vscode.Disposable {
    private readonly previews = new Map<string, SessionPreview>();
    private readonly disposables: vscode.Disposable[];

    constructor(private readonly host: PreviewHost) {
        this.disposables = [
            vscode.commands.registerCommand('piLsp.openPreview', (arg?: unknown) => this.open(arg)),
            vscode.window.onDidChangeActiveTextEditor(() => this.syncContext()),
            vscode.window.onDidChangeTextEditorSelection((e) => {
                this.previews.get(e.textEditor.document.uri.toString())?.follow(e.selections[0].active.line);
            }),
            vscode.workspace.onDidChangeTextDocument((e) => {
                if (e.contentChanges.length) {
                    this.previews.get(e.document.uri.toString())?.refreshSoon();
                }
            }),
        ];
    }

    /** Whether the active editor is a session (the editor title button's when-clause). */
    syncContext(): void {
        const doc = vscode.window.activeTextEditor?.document;
        void vscode.commands.executeCommand('setContext', SESSION_EDITOR_KEY, this.host.isSession(doc));
    }

    /** Render every open preview again (the server restarted). */
    refreshAll(): void {
        for (const p of this.previews.values()) {
            p.refresh();
        }
    }

    private async open(arg?: unknown): Promise<void> {
        const active = vscode.window.activeTextEditor;
        const uri = arg instanceof vscode.Uri ? arg : active?.document.uri;
        const doc = uri ? await vscode.workspace.openTextDocument(uri) : undefined;
        if (!doc || !this.host.isSession(doc)) {
            void vscode.window.showWarningMessage('pi-lsp: open a pi session file to preview it.');
            return;
        }
        const key = doc.uri.toString();
        const existing = this.previews.get(key);
        if (existing) {
            existing.panel.reveal(vscode.ViewColumn.Beside, true);
            existing.refresh();
            return;
        }
        const panel = vscode.window.createWebviewPanel(
            PREVIEW_VIEW,
            `Preview ${path.basename(doc.uri.fsPath)}`,
            { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
            { enableFindWidget: true },
        );
        this.previews.set(key, new SessionPreview(doc.uri, panel, this.host, () => this.previews.delete(key)));
    }

    dispose(): void {
        for (const p of this.previews.values()) {
            p.panel.dispose();
        }
        vscode.Disposable.from(...this.disposables).dispose();
    }
}
