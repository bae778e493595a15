// The script of the session preview's webview (bundled to out/preview.js). It puts the
// server's fragment in the page, keeps the reading position across re-renders (or the end in
// view while pi appends), scrolls to the item at or above the editor's cursor, and tells the
// extension about clicks: an item (reveal its line) or a branch link (render that leaf). Items
// outside the window of a long conversation are stubs (class pi-stub): when one is on screen, or
// is the cursor's item, the page asks for the conversation rendered around it.

interface VsCodeApi {
    postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface RenderMessage {
    type: 'render';
    html: string;
    lines: number[];
    leafId: string | null;
    resumedLeafId: string | null;
    fileName: string;
}
type Message = RenderMessage | { type: 'error'; message: string } | { type: 'cursor'; line: number };

const vscode = acquireVsCodeApi();
const content = document.getElementById('pi-content') as HTMLElement;
const bar = document.getElementById('pi-bar') as HTMLElement;
/** Pixels from the end within which the view counts as following the end of the session. */
const AT_END_SLACK = 48;

/** The items of the rendered conversation, in order. */
function items(): HTMLElement[] {
    return [...content.querySelectorAll<HTMLElement>('section.pi-item[data-line]')];
}

function lineOf(el: HTMLElement): number {
    return Number(el.dataset.line);
}

/** The item at or above a 0-based line of the file (the nearest one), if any. */
function itemAtOrAbove(line: number): HTMLElement | undefined {
    let best: HTMLElement | undefined;
    for (const el of items()) {
        const at = lineOf(el);
        if (at <= line && (!best || at > lineOf(best))) {
            best = el;
        }
    }
    return best;
}

/** The first item whose bottom is below the top of the view, with its offset from that top. */
function readingPosition(): { line: number; offset: number } | undefined {
    for (const el of items()) {
        const box = el.getBoundingClientRect();
        if (box.bottom > 0) {
            return { line: lineOf(el), offset: box.top };
        }
    }
    return undefined;
}

function atEnd(): boolean {
    const root = document.scrollingElement ?? document.documentElement;
    return root.scrollHeight - root.scrollTop - root.clientHeight < AT_END_SLACK;
}

function button(text: string, leaf: string | null): HTMLButtonElement {
    const b = document.createElement('button');
    b.textContent = text;
    b.addEventListener('click', () => vscode.postMessage({ type: 'leaf', leaf }));
    return b;
}

function drawBar(m: RenderMessage): void {
    bar.replaceChildren();
    const name = document.createElement('span');
    name.className = 'pi-bar-file';
    name.textContent = m.fileName;
    const leaf = document.createElement('span');
    leaf.className = 'pi-bar-leaf';
    const resumed = m.leafId === m.resumedLeafId;
    leaf.textContent = m.leafId
        ? `leaf ${m.leafId}${resumed ? ' (pi resumes here)' : ' (not the leaf pi resumes)'}`
        : 'no entries';
    bar.append(name, leaf);
    if (!resumed && m.resumedLeafId) {
        bar.append(button('Back to the leaf pi resumes', null));
    }
}

/** Whether a conversation is shown (not the first render, nor after an error). */
let rendered = false;
/** The line asked for as `around` and not rendered yet, and the cursor line to follow then. */
let asked: number | undefined;
let followAfter: number | undefined;

/** Ask for the conversation rendered whole around this stub (once until the next render). */
function askAround(stub: HTMLElement): void {
    const line = lineOf(stub);
    if (asked !== line) {
        asked = line;
        vscode.postMessage({ type: 'around', line });
    }
}

/** The first stub on screen, if any. */
function visibleStub(): HTMLElement | undefined {
    const top = bar.offsetHeight;
    return items().find((el) => {
        if (!el.classList.contains('pi-stub')) {
            return false;
        }
        const box = el.getBoundingClientRect();
        return box.bottom > top && box.top < window.innerHeight;
    });
}

function render(m: RenderMessage): void {
    const followEnd = rendered && atEnd();
    rendered = true;
    asked = undefined;
    const position = readingPosition();
    content.innerHTML = m.html;
    drawBar(m);
    document.body.dataset.items = String(m.lines.length);
    document.body.dataset.leaf = m.leafId ?? '';
    if (followEnd) {
        window.scrollTo(0, document.documentElement.scrollHeight);
    } else if (position) {
        const el = items().find((e) => lineOf(e) === position.line) ?? itemAtOrAbove(position.line);
        if (el) {
            window.scrollBy(0, el.getBoundingClientRect().top - position.offset);
        }
    }
    if (followAfter !== undefined) {
        const line = followAfter;
        followAfter = undefined;
        follow(line);
    }
    const stub = visibleStub();
    if (stub) {
        askAround(stub);
    }
}

/** Mark the item at or above the cursor and bring it into view when it is not. */
function follow(line: number): void {
    const el = itemAtOrAbove(line);
    for (const old of content.querySelectorAll('.pi-cursor')) {
        old.classList.remove('pi-cursor');
    }
    if (!el) {
        return;
    }
    el.classList.add('pi-cursor');
    if (el.classList.contains('pi-stub')) {
        followAfter = line;
        askAround(el);
    }
    showItem(el);
    // Items off screen are laid out with a placeholder height (content-visibility) and get
    // their real one in the next frames: look again once they have.
    requestAnimationFrame(() => requestAnimationFrame(() => showItem(el)));
}

/** Scroll an item to the top of the view unless it is in view. */
function showItem(el: HTMLElement): void {
    const box = el.getBoundingClientRect();
    const visible = box.top < window.innerHeight && box.bottom > bar.offsetHeight;
    if (!visible) {
        el.scrollIntoView({ block: 'start' });
    }
}

let scrollTimer: number | undefined;
window.addEventListener('scroll', () => {
    window.clearTimeout(scrollTimer);
    scrollTimer = window.setTimeout(() => {
        const stub = visibleStub();
        if (stub) {
            askAround(stub);
        }
    }, 150);
});

window.addEventListener('message', (event: MessageEvent<Message>) => {
    const m = event.data;
    if (m.type === 'render') {
        render(m);
    } else if (m.type === 'cursor') {
        follow(m.line);
    } else if (m.type === 'error') {
        const p = document.createElement('p');
        p.className = 'pi-status pi-error';
        p.textContent = m.message;
        content.replaceChildren(p);
        rendered = false;
    }
});

document.addEventListener('click', (event) => {
    const target = event.target as Element | null;
    const branch = target?.closest<HTMLElement>('a.pi-branch[data-leaf]');
    if (branch) {
        event.preventDefault();
        vscode.postMessage({ type: 'leaf', leaf: branch.dataset.leaf ?? null });
        return;
    }
    const lineLink = target?.closest<HTMLElement>('a.pi-line[data-line]');
    if (lineLink) {
        event.preventDefault();
        vscode.postMessage({ type: 'reveal', line: lineOf(lineLink) });
        return;
    }
    // other links, folds and text being selected keep their own meaning
    if (!target || target.closest('a, summary, button') || !(window.getSelection()?.isCollapsed ?? true)) {
        return;
    }
    const item = target.closest<HTMLElement>('section.pi-item[data-line]');
    if (item) {
        vscode.postMessage({ type: 'reveal', line: lineOf(item) });
    }
});

vscode.postMessage({ type: 'ready' });
