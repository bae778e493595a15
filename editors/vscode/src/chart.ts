// The Session Chart: a webview beside the Session Tree with the context size and the cost of
// the active session over its assistant turns, compactions and branch points marked. The page
// (Apache ECharts bundled in, nothing loaded from the network) comes from the server's
// `pi-lsp.statsChart` command, the same page as `pi-lsp stats --html`. A click on a turn
// reveals its line in the editor.
import * as vscode from 'vscode';

export const CHART_VIEW = 'piLsp.chart';
const STATS_CHART = 'pi-lsp.statsChart';

/** What the chart needs from the extension: the session in the editor and the server. */
export interface ChartHost {
    activeSession(): vscode.TextDocument | undefined;
    uriString(doc: vscode.TextDocument): string;
    executeServerCommand<T>(command: string, args: unknown[]): Promise<T>;
}

interface ChartResult {
    uri: string;
    html: string;
}

class SessionChartProvider implements vscode.WebviewViewProvider {
    private view: vscode.WebviewView | undefined;
    private shown: vscode.Uri | undefined;
    private pending = Promise.resolve();

    constructor(private readonly host: ChartHost) {}

    resolveWebviewView(view: vscode.WebviewView): void {
        this.view = view;
        view.webview.options = { enableScripts: true, localResourceRoots: [] };
        view.webview.onDidReceiveMessage((message) => void this.reveal(message));
        view.onDidChangeVisibility(() => view.visible && this.refresh());
        view.onDidDispose(() => {
            this.view = undefined;
            this.shown = undefined;
        });
        this.refresh();
    }

    /** Draw the active session again (queued: one request at a time). */
    refresh(): void {
        this.pending = this.pending.then(() => this.draw()).catch(() => undefined);
    }

    private async draw(): Promise<void> {
        const view = this.view;
        const doc = this.host.activeSession();
        if (!view || !view.visible || !doc) {
            return;
        }
        try {
            const result = await this.host.executeServerCommand<ChartResult>(STATS_CHART, [this.host.uriString(doc)]);
            view.webview.html = result.html;
            view.description = doc.uri.path.split('/').pop();
            this.shown = doc.uri;
        } catch (error) {
            view.webview.html = `<!DOCTYPE html><html><body><p>Session chart unavailable: ${escapeHtml(
                error instanceof Error ? error.message : String(error),
            )}</p></body></html>`;
        }
    }

    private async reveal(message: unknown): Promise<void> {
        const line = (message as { type?: string; line?: unknown } | undefined)?.line;
        if ((message as { type?: string })?.type !== 'reveal' || typeof line !== 'number' || !this.shown) {
            return;
        }
        const editor = await vscode.window.showTextDocument(this.shown, { preserveFocus: false });
        const at = new vscode.Position(line, 0);
        editor.selection = new vscode.Selection(at, at);
        editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
    }
}

function escapeHtml(text: string): string {
    return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

/** Register the Session Chart view; it follows the active session and redraws on save. */
export function registerChart(host: ChartHost): vscode.Disposable {
    const provider = new SessionChartProvider(host);
    return vscode.Disposable.from(
        vscode.window.registerWebviewViewProvider(CHART_VIEW, provider, { webviewOptions: { retainContextWhenHidden: false } }),
        vscode.window.onDidChangeActiveTextEditor(() => provider.refresh()),
        vscode.workspace.onDidSaveTextDocument(() => provider.refresh()),
        vscode.commands.registerCommand('piLsp.showChart', async () => {
            await vscode.commands.executeCommand(`${CHART_VIEW}.focus`);
            provider.refresh();
        }),
    );
}
