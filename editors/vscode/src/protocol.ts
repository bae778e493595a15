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

export const COMMANDS = {
    tree: 'pi-lsp.tree',
    context: 'pi-lsp.context',
    migrate: 'pi-lsp.migrate',
    fork: 'pi-lsp.fork',
} as const;
