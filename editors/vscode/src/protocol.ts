// Shapes returned by the pi-lsp server's workspace commands.

export interface TreeNode {
    id: string;
    /** 0-based line of the entry in the file. */
    line: number;
    parentId: string | null;
    type: string;
    role: string | null;
    title: string;
    labels: string[];
    isLeaf: boolean;
    onActivePath: boolean;
    children: string[];
}

/** Result of `pi-lsp.tree [uri]`. */
export interface TreeResult {
    uri: string;
    leafId: string | null;
    roots: string[];
    nodes: TreeNode[];
}

export interface ContextMessage {
    role: string;
    line: number;
    title: string;
}

/** Result of `pi-lsp.context [uri, leafId|null]`. */
export interface ContextResult {
    messages: ContextMessage[];
    thinkingLevel: string | null;
    model: { provider?: string; modelId?: string } | string | null;
}

/** Result of `pi-lsp.fork [uri, entryId]`. */
export interface ForkResult {
    path: string;
}

/** Options of `pi-lsp.preview [uri, options]`. */
export interface PreviewOptions {
    /** The leaf to render (entry id or "L<line>"); null: the leaf pi resumes. */
    leaf: string | null;
    format: 'html' | 'markdown';
    /** A long conversation is rendered whole around this 0-based line (null: its end). */
    around?: number | null;
}

export interface PreviewItem {
    /** 0-based line of the item's entry in the file. */
    line: number;
    kind: string;
    /** 0-based line in `markdown` where the item starts (-1 for format html). */
    previewLine: number;
    /** Whole, or a stub (only its heading) outside the window of a long conversation. */
    rendered?: boolean;
}

export interface PreviewLeaf {
    id: string;
    title: string;
    current: boolean;
}

export interface PreviewBranch {
    line: number;
    id: string;
    leaves: PreviewLeaf[];
}

/** Result of `pi-lsp.preview [uri, options]`: the conversation along one leaf, rendered. */
export interface PreviewResult {
    uri: string;
    version: number | null;
    leafId: string | null;
    resumedLeafId: string | null;
    html?: string;
    markdown?: string;
    items: PreviewItem[];
    branches: PreviewBranch[];
}

export const COMMANDS = {
    tree: 'pi-lsp.tree',
    context: 'pi-lsp.context',
    migrate: 'pi-lsp.migrate',
    fork: 'pi-lsp.fork',
    preview: 'pi-lsp.preview',
} as const;
