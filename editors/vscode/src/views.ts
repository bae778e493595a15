// The "Session Tree" and "Context" views in the explorer.
import * as vscode from 'vscode';
import type { ContextResult, TreeNode, TreeResult } from './protocol';

const REVEAL = 'piLsp.revealLine';

function iconFor(node: { type: string; role: string | null }): string {
    switch (node.role ?? '') {
        case 'user':
            return 'account';
        case 'assistant':
            return 'hubot';
        case 'toolResult':
            return 'tools';
        case 'bashExecution':
            return 'terminal';
        case 'branchSummary':
            return 'git-merge';
        case 'compactionSummary':
            return 'fold';
        case 'custom':
        case 'hookMessage':
            return 'extensions';
    }
    switch (node.type) {
        case 'session':
            return 'file';
        case 'compaction':
            return 'fold';
        case 'branch_summary':
            return 'git-merge';
        case 'model_change':
            return 'settings-gear';
        case 'thinking_level_change':
            return 'lightbulb';
        case 'label':
            return 'tag';
        case 'session_info':
            return 'info';
        case 'custom':
        case 'custom_message':
            return 'extensions';
        default:
            return 'symbol-misc';
    }
}

function revealCommand(uri: vscode.Uri, line: number): vscode.Command {
    return { command: REVEAL, title: 'Reveal Entry', arguments: [uri, line] };
}

export type SessionItem =
    | { kind: 'entry'; node: TreeNode }
    | { kind: 'branch'; node: TreeNode; index: number; size: number; hasLeaf: boolean; root: boolean };

/** Session Tree: linear runs are shown flat, every branch point opens one node per branch. */
export class SessionTreeProvider implements vscode.TreeDataProvider<SessionItem> {
    private readonly changed = new vscode.EventEmitter<SessionItem | undefined>();
    readonly onDidChangeTreeData = this.changed.event;

    private result: TreeResult | undefined;
    private docUri: vscode.Uri | undefined;
    private byId = new Map<string, TreeNode>();
    private byLine = new Map<number, TreeNode>();
    private sizes = new Map<string, { size: number; hasLeaf: boolean }>();

    get current(): { uri: vscode.Uri; result: TreeResult } | undefined {
        return this.result && this.docUri ? { uri: this.docUri, result: this.result } : undefined;
    }

    set(uri: vscode.Uri | undefined, result: TreeResult | undefined): void {
        this.docUri = uri;
        this.result = result;
        this.byId = new Map((result?.nodes ?? []).map((n) => [n.id, n]));
        this.byLine = new Map((result?.nodes ?? []).map((n) => [n.line, n]));
        this.sizes.clear();
        this.changed.fire(undefined);
    }

    nodeAtLine(line: number): TreeNode | undefined {
        return this.byLine.get(line);
    }

    node(id: string): TreeNode | undefined {
        return this.byId.get(id);
    }

    private subtree(id: string): { size: number; hasLeaf: boolean } {
        const cached = this.sizes.get(id);
        if (cached) {
            return cached;
        }
        // Iterative: sessions can be thousands of entries deep.
        let size = 0;
        let hasLeaf = false;
        const seen = new Set<string>();
        const stack = [id];
        while (stack.length) {
            const cur = this.byId.get(stack.pop() as string);
            if (!cur || seen.has(cur.id)) {
                continue;
            }
            seen.add(cur.id);
            size++;
            hasLeaf ||= cur.isLeaf;
            stack.push(...cur.children);
        }
        const out = { size, hasLeaf };
        this.sizes.set(id, out);
        return out;
    }

    /** The entry and its single-child descendants, then one branch item per child at a fork. */
    private chain(startId: string): SessionItem[] {
        const items: SessionItem[] = [];
        const seen = new Set<string>();
        let cur = this.byId.get(startId);
        while (cur && !seen.has(cur.id)) {
            seen.add(cur.id);
            items.push({ kind: 'entry', node: cur });
            const kids = cur.children.map((c) => this.byId.get(c)).filter((n): n is TreeNode => !!n);
            if (kids.length === 1) {
                cur = kids[0];
                continue;
            }
            kids.forEach((k, index) => {
                const { size, hasLeaf } = this.subtree(k.id);
                items.push({ kind: 'branch', node: k, index, size, hasLeaf, root: false });
            });
            break;
        }
        return items;
    }

    getChildren(element?: SessionItem): SessionItem[] {
        if (!this.result) {
            return [];
        }
        if (!element) {
            const roots = this.result.roots.map((r) => this.byId.get(r)).filter((n): n is TreeNode => !!n);
            if (roots.length === 1) {
                return this.chain(roots[0].id);
            }
            return roots.map((node, index) => {
                const { size, hasLeaf } = this.subtree(node.id);
                return { kind: 'branch', node, index, size, hasLeaf, root: true };
            });
        }
        return element.kind === 'branch' ? this.chain(element.node.id) : [];
    }

    getTreeItem(element: SessionItem): vscode.TreeItem {
        const n = element.node;
        const uri = this.docUri as vscode.Uri;
        if (element.kind === 'branch') {
            const item = new vscode.TreeItem(
                `${element.root ? 'root' : 'branch'} ${element.index + 1}: ${n.title}`,
                n.onActivePath || element.hasLeaf
                    ? vscode.TreeItemCollapsibleState.Expanded
                    : vscode.TreeItemCollapsibleState.Collapsed,
            );
            item.id = `${uri.toString()}#branch:${n.id}`;
            item.iconPath = new vscode.ThemeIcon(
                'git-branch',
                n.onActivePath ? new vscode.ThemeColor('charts.green') : undefined,
            );
            const parts = [`${element.size} ${element.size === 1 ? 'entry' : 'entries'}`];
            if (element.hasLeaf) {
                parts.push('has leaf');
            }
            item.description = parts.join(' · ');
            item.tooltip = `${element.root ? 'Root' : 'Branch'} starting at line ${n.line + 1} (${n.id})`;
            item.contextValue = 'branch';
            return item;
        }
        const item = new vscode.TreeItem(n.title || n.type, vscode.TreeItemCollapsibleState.None);
        item.id = `${uri.toString()}#${n.id}`;
        item.iconPath = new vscode.ThemeIcon(
            n.isLeaf ? 'star-full' : iconFor(n),
            n.onActivePath ? new vscode.ThemeColor('charts.green') : undefined,
        );
        const desc = [`L${n.line + 1}`];
        for (const label of n.labels) {
            desc.push(`🏷 ${label}`);
        }
        if (n.isLeaf) {
            desc.push('leaf');
        }
        item.description = desc.join(' · ');
        const md = new vscode.MarkdownString();
        md.appendMarkdown(`**${n.type}${n.role ? ` · ${n.role}` : ''}**  \n`);
        md.appendMarkdown(`id \`${n.id}\` · line ${n.line + 1}`);
        if (n.parentId) {
            const p = this.byId.get(n.parentId);
            md.appendMarkdown(` · parent \`${n.parentId}\`${p ? ` (line ${p.line + 1})` : ''}`);
        }
        md.appendMarkdown('  \n');
        if (n.labels.length) {
            md.appendMarkdown(`labels: ${n.labels.map((l) => `\`${l}\``).join(', ')}  \n`);
        }
        md.appendMarkdown(n.isLeaf ? 'leaf (pi resumes here)' : n.onActivePath ? 'on the active path' : 'off the active path');
        item.tooltip = md;
        item.contextValue = n.isLeaf ? 'entry.leaf' : 'entry';
        item.command = revealCommand(uri, n.line);
        return item;
    }
}

export type ContextItem =
    | { kind: 'info'; label: string; description: string; icon: string }
    | { kind: 'message'; role: string; line: number; title: string; index: number };

/** Context view: what pi would send to the model if it resumed from the selected entry. */
export class ContextProvider implements vscode.TreeDataProvider<ContextItem> {
    private readonly changed = new vscode.EventEmitter<ContextItem | undefined>();
    readonly onDidChangeTreeData = this.changed.event;
    private items: ContextItem[] = [];
    private docUri: vscode.Uri | undefined;

    set(uri: vscode.Uri | undefined, result: ContextResult | undefined): void {
        this.docUri = uri;
        this.items = [];
        if (result) {
            const model =
                typeof result.model === 'string'
                    ? result.model
                    : result.model
                      ? [result.model.provider, result.model.modelId].filter(Boolean).join('/')
                      : '';
            this.items.push({ kind: 'info', label: 'model', description: model || '(default)', icon: 'hubot' });
            this.items.push({
                kind: 'info',
                label: 'thinking',
                description: result.thinkingLevel ?? '(default)',
                icon: 'lightbulb',
            });
            this.items.push({
                kind: 'info',
                label: 'messages',
                description: String(result.messages.length),
                icon: 'comment-discussion',
            });
            result.messages.forEach((m, index) => this.items.push({ kind: 'message', ...m, index }));
        }
        this.changed.fire(undefined);
    }

    getChildren(element?: ContextItem): ContextItem[] {
        return element ? [] : this.items;
    }

    getTreeItem(element: ContextItem): vscode.TreeItem {
        if (element.kind === 'info') {
            const item = new vscode.TreeItem(element.label);
            item.description = element.description;
            item.iconPath = new vscode.ThemeIcon(element.icon);
            return item;
        }
        const item = new vscode.TreeItem(`${element.index + 1}. ${element.title || element.role}`);
        item.description = `L${element.line + 1}`;
        item.tooltip = `${element.role} · line ${element.line + 1}`;
        item.iconPath = new vscode.ThemeIcon(iconFor({ type: 'message', role: element.role }));
        if (this.docUri) {
            item.command = revealCommand(this.docUri, element.line);
        }
        return item;
    }
}

export function registerReveal(): vscode.Disposable {
    return vscode.commands.registerCommand(REVEAL, async (uri: vscode.Uri, line: number) => {
        const doc = await vscode.workspace.openTextDocument(uri);
        const editor = await vscode.window.showTextDocument(doc, { preserveFocus: false, preview: false });
        const pos = new vscode.Position(Math.min(line, Math.max(doc.lineCount - 1, 0)), 0);
        editor.selection = new vscode.Selection(pos, pos);
        editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    });
}
