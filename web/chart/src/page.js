// The stats page of pi-lsp: context size and cost over a session's assistant turns, with
// compactions and branch points marked, and the totals as tables. The data is the JSON that
// `pi-lsp stats --format json` prints, embedded in the page as
// <script type="application/json" id="pi-lsp-stats">. The same page is the VS Code Session
// Chart webview: there it takes the editor's colours, and a click on a turn asks the
// extension to reveal that line.
import { LineChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, MarkLineComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([LineChart, GridComponent, TooltipComponent, LegendComponent, MarkLineComponent, DataZoomComponent, CanvasRenderer]);

const vscode = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : undefined;

const COLUMNS = [
    ['userMessages', 'user'],
    ['assistantMessages', 'assistant'],
    ['toolResults', 'results'],
    ['toolCalls', 'calls'],
    ['input', 'input'],
    ['output', 'output'],
    ['cacheRead', 'cache read'],
    ['cacheWrite', 'cache write'],
    ['cost', 'cost'],
];

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const tokens = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : int.format(n));
const dollars = (n) => `$${n.toFixed(n >= 100 ? 2 : 4)}`;

function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
        if (k === 'class') node.className = v;
        else node.setAttribute(k, v);
    }
    for (const child of children) {
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
}

function colors() {
    const css = getComputedStyle(document.body);
    const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
    const dark = document.body.classList.contains('vscode-dark') || document.body.classList.contains('vscode-high-contrast') ||
        (!vscode && window.matchMedia?.('(prefers-color-scheme: dark)').matches);
    return {
        text: v('--vscode-foreground', dark ? '#d4d4d4' : '#1f2328'),
        muted: v('--vscode-descriptionForeground', dark ? '#9d9d9d' : '#59636e'),
        grid: dark ? 'rgba(255,255,255,0.10)' : 'rgba(0,0,0,0.08)',
        context: v('--vscode-charts-blue', '#3b82f6'),
        cost: v('--vscode-charts-green', '#16a34a'),
        abandoned: v('--vscode-charts-purple', '#a855f7'),
        compaction: v('--vscode-charts-orange', '#ea580c'),
        branch: dark ? '#9ca3af' : '#6b7280',
    };
}

function totalsTable(rows, keyHeading) {
    const head = el('tr', {}, el('th', {}, keyHeading), ...COLUMNS.map(([, label]) => el('th', { class: 'num' }, label)));
    const body = rows.map(([key, t, cls]) =>
        el('tr', cls ? { class: cls } : {}, el('td', { class: 'key', title: key }, key),
            ...COLUMNS.map(([k]) => el('td', { class: 'num' }, k === 'cost' ? dollars(t[k]) : int.format(t[k])))),
    );
    return el('table', {}, el('thead', {}, head), el('tbody', {}, ...body));
}

// Consecutive turns of one branch as line segments: a new segment (after a gap) wherever the
// turn number does not go up by one, i.e. where a sub-branch starts again from an earlier turn.
function segments(turns, start) {
    const out = start ? [start] : [];
    let last = start ? start.value[0] : undefined;
    for (const t of turns) {
        if (last !== undefined && t.turn !== last + 1) out.push({ value: [t.turn, null] });
        out.push({ value: [t.turn, t.context], turn: t });
        last = t.turn;
    }
    return out;
}

function markLines(markers, kind, c) {
    const compaction = kind === 'compaction';
    return markers.map((m) => ({
        xAxis: m.turn + (compaction ? 0.5 : 0),
        name: compaction ? `compaction (line ${m.line}, ${tokens(m.tokensBefore)} before)` : `branch point (line ${m.line}, ${m.children} branches)`,
        lineStyle: { color: compaction ? c.compaction : c.branch, type: compaction ? 'solid' : 'dashed', width: compaction ? 2 : 1 },
        label: { show: false },
    }));
}

function chartOption(file, c) {
    const active = file.turns.filter((t) => t.branch === 0);
    const series = [
        {
            name: 'context (active path)',
            type: 'line',
            showSymbol: active.length < 200,
            symbolSize: 5,
            data: segments(active),
            lineStyle: { color: c.context, width: 2 },
            itemStyle: { color: c.context },
            markLine: {
                symbol: 'none',
                silent: false,
                data: [
                    ...markLines(file.compactions.filter((m) => m.branch === 0), 'compaction', c),
                    ...markLines(file.branchPoints.filter((m) => m.branch === 0), 'branch', c),
                ],
            },
        },
        {
            name: 'cost so far (active path)',
            type: 'line',
            yAxisIndex: 1,
            showSymbol: false,
            step: 'end',
            data: active.map((t) => ({ value: [t.turn, t.pathCost], turn: t })),
            lineStyle: { color: c.cost, width: 2 },
            itemStyle: { color: c.cost },
            areaStyle: { color: c.cost, opacity: 0.08 },
        },
    ];
    // legend entries for the markers (the vertical lines themselves belong to the series above)
    for (const [name, color, type] of [['compaction', c.compaction, 'solid'], ['branch point', c.branch, 'dashed']]) {
        series.push({ name, type: 'line', data: [], lineStyle: { color, type }, itemStyle: { color }, symbol: 'none' });
    }
    const byTurn = new Map(active.map((t) => [t.turn, t]));
    for (const b of file.branches.slice(1)) {
        const turns = file.turns.filter((t) => t.branch === b.index);
        if (!turns.length) continue;
        const from = byTurn.get(b.forkedAtTurn);
        series.push({
            name: 'abandoned branches',
            type: 'line',
            showSymbol: turns.length < 100,
            symbolSize: 4,
            data: segments(turns, from ? { value: [from.turn, from.context], turn: from } : undefined),
            lineStyle: { color: c.abandoned, type: 'dashed', width: 1.5 },
            itemStyle: { color: c.abandoned },
            markLine: {
                symbol: 'none',
                data: markLines(file.compactions.filter((m) => m.branch === b.index), 'compaction', c),
            },
        });
    }
    const axis = { axisLine: { lineStyle: { color: c.muted } }, axisLabel: { color: c.muted }, splitLine: { lineStyle: { color: c.grid } } };
    return {
        animation: false,
        textStyle: { color: c.text },
        grid: { left: 56, right: 64, top: 64, bottom: 64 },
        legend: { top: 0, textStyle: { color: c.text }, data: ['context (active path)', 'cost so far (active path)', 'abandoned branches', 'compaction', 'branch point'] },
        tooltip: {
            trigger: 'item',
            formatter: (p) => {
                if (p.componentType === 'markLine') return p.name;
                const t = p.data?.turn;
                if (!t) return '';
                const rows = [
                    `<b>turn ${t.turn}</b> · line ${t.line}${t.branch ? ' · abandoned branch' : ''}`,
                    `context: ${t.context == null ? 'n/a' : int.format(t.context)} tokens`,
                    `this turn: ${dollars(t.cost)} · so far: ${dollars(t.pathCost)}`,
                    t.model ? `model: ${t.model}` : '',
                ];
                return rows.filter(Boolean).map((r) => r.replace(/&(?!amp;|lt;|gt;)/g, '&amp;')).join('<br>');
            },
        },
        xAxis: { type: 'value', name: 'assistant turn', nameLocation: 'middle', nameGap: 28, minInterval: 1, min: 0, ...axis },
        yAxis: [
            { type: 'value', name: 'context tokens', axisLabel: { color: c.muted, formatter: tokens }, axisLine: axis.axisLine, splitLine: axis.splitLine, nameTextStyle: { color: c.muted } },
            { type: 'value', name: 'cost', axisLabel: { color: c.muted, formatter: (n) => `$${n}` }, splitLine: { show: false }, nameTextStyle: { color: c.muted } },
        ],
        dataZoom: [{ type: 'inside' }, { type: 'slider', height: 16, bottom: 8 }],
        series,
    };
}

function baseName(path) {
    return path.split(/[\\/]/).pop();
}

function fileTitle(file) {
    const base = baseName(file.path);
    return file.name ? `${file.name} — ${base}` : base;
}

// "152 copied entries ($0.1234) counted in <session>": the entries of a fork or clone that an
// older file holds too, and counts (so that a session and its forks cost what was spent).
function copiedText(where, titles) {
    const entries = where.entries === 1 ? 'entry' : 'entries';
    return `${int.format(where.entries)} copied ${entries} (${dollars(where.cost)}) counted in ${placeName(where, titles)}`;
}

function placeName(where, titles) {
    return titles.get(where.path) ?? baseName(where.path);
}

function card(label, value, detail) {
    return el('div', { class: 'card' }, el('span', {}, label), el('b', {}, value), ...(detail ? [el('span', {}, detail)] : []));
}

function renderFile(file, box, c, titles) {
    box.replaceChildren();
    if (file.error) {
        box.append(el('p', { class: 'note' }, `${file.path}: ${file.error}`));
        return;
    }
    const t = file.total;
    // a fork's cards count only its own entries: say so, and where the copies are counted
    const own = file.copies ? ' (own entries)' : '';
    const cards = el('div', { class: 'cards' },
        card(`cost${own}`, dollars(t.cost)),
        card(`active path${own}`, dollars(file.activePath.cost)),
        card(`abandoned branches${own}`, dollars(file.abandoned.cost)),
        card(`tokens${own}`, tokens(t.input + t.output + t.cacheRead + t.cacheWrite)),
        card(`assistant turns${own}`, int.format(t.assistantMessages)),
        card('compactions', int.format(file.compactions.length)),
        ...(file.copies ? [card('copied entries', int.format(file.copies), `counted in ${(file.countedIn ?? []).map((w) => placeName(w, titles)).join(', ')}`)] : []),
    );
    const chartBox = el('div', { class: 'chart', id: 'chart' });
    box.append(cards, chartBox);
    if (file.copies) {
        box.append(el('p', { class: 'note' },
            `${(file.countedIn ?? []).map((w) => copiedText(w, titles)).join('; ')}. `
            + 'The cards count the entries this session added; the chart plots its whole active path, copied entries included.'));
    }
    const rows = file.branches.map((b) => [
        b.index === 0 ? 'active path' : `abandoned: line ${b.firstLine}${b.forkedAtLine ? ` (from line ${b.forkedAtLine})` : ' (a separate root)'}`,
        b.total,
        b.index === 0 ? 'active' : '',
    ]);
    box.append(el('h3', {}, 'Branches'), totalsTable(rows, 'branch'));
    const chart = echarts.init(chartBox, null, { renderer: 'canvas' });
    chart.setOption(chartOption(file, c));
    chart.on('click', (p) => {
        const turn = p.data?.turn;
        if (turn && vscode) vscode.postMessage({ type: 'reveal', line: turn.line - 1 });
    });
    new ResizeObserver(() => chart.resize()).observe(chartBox);
    document.body.dataset.rendered = String(file.turns.length);
}

function main() {
    const data = JSON.parse(document.getElementById('pi-lsp-stats').textContent);
    const c = colors();
    const root = document.getElementById('app');
    const files = data.files.filter((f) => !f.error);
    const titles = new Map(files.map((f) => [f.path, fileTitle(f)]));
    const box = el('section', { class: 'file' });
    if (!files.length) {
        root.append(el('p', { class: 'note' }, 'No pi session to show.'));
        document.body.dataset.rendered = '0';
        return;
    }
    if (files.length > 1) {
        const pick = el('select', { id: 'session' }, ...files.map((f, n) => el('option', { value: String(n) }, `${fileTitle(f)} (${dollars(f.total.cost)}${f.copies ? ` + ${int.format(f.copies)} copied entries counted elsewhere` : ''})`)));
        pick.addEventListener('change', () => renderFile(files[Number(pick.value)], box, c, titles));
        root.append(el('h2', {}, `${files.length} sessions · ${dollars(data.total.cost)}`), totalsTable([['total', data.total, 'active']], ''),
            el('h3', {}, 'Session'), pick);
    } else {
        root.append(el('h2', {}, fileTitle(files[0])));
    }
    root.append(box);
    if (data.groups?.length) {
        root.append(el('h3', {}, `By ${data.by}`), totalsTable(data.groups.map((g) => [g.key, g]), data.by));
    }
    renderFile(files[0], box, c, titles);
}

main();
