// Drives VS Code (code-server in headless Chromium, through playwright-core) on a pi session
// and records what a person would see, as JSON plus screenshots.
// Usage: node vscode_drive.cjs SPEC.json OUT.json
// SPEC: { playwrightCore, chromium, url, fileName, hoverLine, hoverNeedle, screenshotDir,
//         readmeScreenshot, profileDir, timeoutMs, migrate, extensionPage,
//         chart: {fileName, readmeScreenshot},
//         preview: {fileName, path, clickLine, followLine, append, appendedText, otherLeaf,
//                   otherText, readmeScreenshot},
//         previewLong: {fileName, firstLine, lastLine} }
'use strict';
const fs = require('fs');
const path = require('path');

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const outPath = process.argv[3];
const { chromium } = require(spec.playwrightCore);
const T = spec.timeoutMs || 60000;
const R = { steps: [], errors: [], console: [], screenshots: [] };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const started = Date.now();
const step = (s) => {
    const at = ((Date.now() - started) / 1000).toFixed(1);
    R.steps.push(`${s} (${at} s)`);
    process.stderr.write(`[vscode_drive ${at} s] ${s}\n`);
};

async function shot(page, name) {
    const p = path.join(spec.screenshotDir, name);
    await page.screenshot({ path: p });
    R.screenshots.push(p);
    return p;
}

async function pressChord(page, ...keys) {
    for (const k of keys) {
        await page.keyboard.press(k);
        await sleep(150);
    }
}

async function runCommand(page, title) {
    await pressChord(page, 'F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: T });
    await input.fill('>' + title);
    await sleep(400);
    await page.keyboard.press('Enter');
    await sleep(300);
}

async function gotoLine(page, line, col) {
    await pressChord(page, 'Control+g');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: T });
    await input.fill(`:${line}:${col}`);
    await sleep(200);
    await page.keyboard.press('Enter');
    await sleep(300);
}

async function editorText(page) {
    return page.evaluate(() => {
        const lines = [...document.querySelectorAll('.editor-instance .view-lines .view-line')];
        lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
        return lines.map((l) => l.textContent.replace(/\u00a0/g, ' '));
    });
}

// The Session Chart's page: the webview's inner frame, once it has drawn (body[data-rendered]).
async function chartFrame(page) {
    const deadline = Date.now() + T;
    while (Date.now() < deadline) {
        for (const frame of page.frames()) {
            const rendered = await frame
                .evaluate(() => (document.getElementById('pi-lsp-stats') ? document.body.dataset.rendered ?? null : undefined))
                .catch(() => undefined);
            if (rendered !== undefined && rendered !== null) {
                return { frame };
            }
        }
        await sleep(300);
    }
    return undefined;
}

// The session preview's page: the webview's inner frame once `ready(body)` holds.
async function previewFrame(page, ready) {
    const deadline = Date.now() + T;
    while (Date.now() < deadline) {
        for (const frame of page.frames()) {
            const ok = await frame
                .evaluate(`(() => { const b = document.body; return !!document.getElementById('pi-content') && (${ready})(b); })()`)
                .catch(() => false);
            if (ok) {
                return frame;
            }
        }
        await sleep(250);
    }
    return undefined;
}

// Wait until `fn()` gives a truthy value (or the time is up); its last value.
async function until(fn, ms = 20000) {
    const deadline = Date.now() + ms;
    let value;
    do {
        value = await fn().catch(() => undefined);
        if (value) {
            return value;
        }
        await sleep(200);
    } while (Date.now() < deadline);
    return value;
}

// pi-lsp: Open Preview to the Side on a session: the webview shows the conversation, a click
// on an item moves the cursor to its line, the cursor scrolls the preview, an append on disk
// shows up, a branch link renders the other leaf.
async function drivePreview(page, pv) {
    const P = {};
    R.preview = P;
    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'View: Close Panel');
    await pressChord(page, 'Control+p');
    const qo = page.locator('.quick-input-widget input');
    await qo.waitFor({ state: 'visible' });
    await qo.fill(pv.fileName);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: pv.fileName }).first().waitFor({ state: 'visible' });
    await page.keyboard.press('Enter');
    await page.locator(`.tab.active[aria-label*="${pv.fileName}"]`).first().waitFor();
    await runCommand(page, 'View: Close Primary Side Bar');
    const button = page.locator('.editor-actions .action-label[aria-label*="Open Preview to the Side"]');
    await button.first().waitFor({ state: 'visible', timeout: 15000 }).catch(() => {});
    P.titleButton = await button.count().catch(() => -1);
    await runCommand(page, 'pi-lsp: Open Preview to the Side');
    const frame = await previewFrame(page, '(b) => Number(b.dataset.items) > 0');
    if (!frame) {
        throw new Error('the preview did not render');
    }
    P.tabs = await page.locator('.tabs-container .tab').evaluateAll((ts) => ts.map((t) => t.getAttribute('aria-label') || ''));
    P.activeTab = (await page.locator('.tab.active').first().getAttribute('aria-label').catch(() => '')) || '';
    Object.assign(
        P,
        await frame.evaluate(() => ({
            csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
            items: [...document.querySelectorAll('section.pi-item')].map((s) => ({
                line: Number(s.dataset.line),
                head: s.querySelector('.pi-head')?.textContent ?? '',
            })),
            text: document.body.innerText,
            leaf: document.body.dataset.leaf,
            highlighted: document.querySelectorAll('pre span.k, pre span.s2, pre span.nt').length,
            foreground: getComputedStyle(document.body).color,
            background: getComputedStyle(document.body).backgroundColor,
            themeForeground: getComputedStyle(document.documentElement).getPropertyValue('--vscode-editor-foreground').trim(),
            scripts: [...document.scripts].map((s) => s.src),
            thinkingOpen: [...document.querySelectorAll('details.pi-thinking')].map((d) => d.open),
        })),
    );
    await runCommand(page, 'View: Close Panel');
    await sleep(500);
    await shot(page, 'vscode-preview.png');
    step('preview');

    // a click on an item: the session's cursor on the item's line
    const status = () => page.locator('.statusbar-item[id="status.editor.selection"]').first().innerText();
    await frame.locator(`section.pi-item[data-line="${pv.clickLine}"] .pi-body`).first().click();
    P.clickStatus = await until(async () => {
        const s = await status();
        return s.includes(`Ln ${pv.clickLine + 1},`) ? s : undefined;
    });
    P.clickStatus = P.clickStatus || (await status().catch(() => ''));
    step('preview click');

    // the cursor moves in the session: the preview marks (and shows) the item at or above it
    await gotoLine(page, pv.followLine + 1, 1);
    P.cursorItem = await until(() =>
        frame.evaluate((want) => {
            const el = document.querySelector('section.pi-cursor');
            return el && Number(el.dataset.line) === want ? want : undefined;
        }, pv.followLine),
    );
    P.cursorItem = P.cursorItem ?? (await frame.evaluate(() => document.querySelector('section.pi-cursor')?.dataset.line ?? null));
    step('preview follows the cursor');
    await runCommand(page, 'View: Close Panel');
    await sleep(300);
    const followed = await shot(page, 'vscode-preview-follow.png');
    if (pv.readmeScreenshot) {
        fs.copyFileSync(followed, pv.readmeScreenshot);
    }

    // pi appends a line on disk: the preview shows it
    const t0 = Date.now();
    fs.appendFileSync(pv.path, pv.append + '\n');
    P.appended = !!(await until(() => frame.evaluate((t) => document.body.innerText.includes(t), pv.appendedText)));
    P.appendMs = Date.now() - t0;
    step('preview after an append');

    // a branch link renders that leaf; the bar's button goes back to the leaf pi resumes
    await frame.locator(`a.pi-branch[data-leaf="${pv.otherLeaf}"]`).first().click();
    P.otherLeaf = await until(() => frame.evaluate((l) => (document.body.dataset.leaf === l ? l : undefined), pv.otherLeaf));
    // the bar names the leaf before every item of it is laid out: wait for its text
    const otherText = () => frame.evaluate(() => document.getElementById('pi-content').innerText);
    P.otherText = (await until(async () => ((await otherText()).includes(pv.otherText) ? otherText() : undefined))) ?? (await otherText());
    await frame.locator('#pi-bar button').first().click();
    P.backLeaf = await until(() =>
        frame.evaluate((l) => (document.body.dataset.leaf && document.body.dataset.leaf !== l ? document.body.dataset.leaf : undefined), pv.otherLeaf),
    );
    step('preview branches');
    await shot(page, 'vscode-preview-after.png');
    await runCommand(page, 'View: Close All Editors');
}

// The preview of a conversation longer than the server renders whole: the stubs on screen
// (its start) and then the cursor's item (its end) come whole.
async function driveLongPreview(page, pv) {
    const P = {};
    R.previewLong = P;
    await pressChord(page, 'Control+p');
    const qo = page.locator('.quick-input-widget input');
    await qo.waitFor({ state: 'visible' });
    await qo.fill(pv.fileName);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: pv.fileName }).first().waitFor({ state: 'visible' });
    await page.keyboard.press('Enter');
    await page.locator(`.tab.active[aria-label*="${pv.fileName}"]`).first().waitFor();
    // this time from the editor title's button (shown once the editor counts as a session)
    const button = page.locator('.editor-actions .action-label[aria-label*="Open Preview to the Side"]').first();
    await button.waitFor({ state: 'visible', timeout: 15000 });
    await button.click();
    const frame = await previewFrame(page, '(b) => Number(b.dataset.items) > 0');
    if (!frame) {
        throw new Error('the long preview did not render');
    }
    const whole = (line) =>
        frame.evaluate((l) => {
            const el = document.querySelector(`section.pi-item[data-line="${l}"]`);
            return el ? !el.classList.contains('pi-stub') : null;
        }, line);
    P.items = await frame.evaluate(() => document.querySelectorAll('section.pi-item').length);
    P.stubs = await frame.evaluate(() => document.querySelectorAll('section.pi-stub').length);
    P.firstWhole = await until(() => whole(pv.firstLine));
    step('long preview: the start on screen');
    await pressChord(page, 'Control+1');
    await gotoLine(page, pv.lastLine + 1, 1);
    P.lastWhole = await until(() => whole(pv.lastLine));
    P.lastInView = !!(await until(
        () =>
            frame.evaluate((l) => {
                const box = document.querySelector(`section.pi-item[data-line="${l}"]`).getBoundingClientRect();
                return box.top < window.innerHeight && box.bottom > 0;
            }, pv.lastLine),
        5000,
    ));
    P.firstWholeAfter = await whole(pv.firstLine);
    step('long preview: the cursor at the end');
    await shot(page, 'vscode-preview-long.png');
    await runCommand(page, 'View: Close All Editors');
}

async function main() {
    fs.mkdirSync(spec.screenshotDir, { recursive: true });
    const context = await chromium.launchPersistentContext(spec.profileDir, {
        executablePath: spec.chromium,
        headless: true,
        args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--disable-dev-shm-usage',
        ],
        viewport: { width: 1440, height: 900 },
        deviceScaleFactor: 1,
        timeout: T,
    });
    context.setDefaultTimeout(T);
    const page = context.pages()[0] || (await context.newPage());
    page.on('console', (m) => {
        if (m.type() === 'error' && R.console.length < 50) {
            R.console.push(m.text().slice(0, 300));
        }
    });
    page.on('pageerror', (e) => R.console.push('pageerror: ' + String(e).slice(0, 300)));

    try {
        await page.goto(spec.url, { waitUntil: 'domcontentloaded' });
        await page.locator('.monaco-workbench').waitFor({ state: 'visible' });
        await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ state: 'visible' });
        await sleep(1500);
        step('workbench');

        // Before any file is opened: the Problems panel lists the broken session of the
        // opened folder (workspace diagnostics), and the status bar counts pi-lsp's problems.
        if (spec.unopened) {
            await pressChord(page, 'Control+Shift+m');
            const panel = page.locator('.markers-panel');
            await panel.waitFor({ state: 'visible' });
            const until = Date.now() + T;
            let text = '';
            while (Date.now() < until) {
                text = await panel.innerText().catch(() => '');
                if (text.includes(spec.fileName) && (spec.expectCodes || []).every((c) => text.includes(c))) {
                    break;
                }
                await sleep(500);
            }
            R.unopenedProblems = text;
            R.unopenedTabs = await page.locator('.tabs-container .tab').count().catch(() => -1);
            // the count follows the diagnostics after a short debounce
            const counted = Date.now() + 10000;
            do {
                R.piStatus = await page
                    .locator('.statusbar-item')
                    .evaluateAll((items) =>
                        items
                            .map((i) => i.getAttribute('aria-label') || i.textContent || '')
                            .filter((t) => t.startsWith('pi-lsp:')),
                    )
                    .catch(() => []);
                if (R.piStatus.length && !R.piStatus[0].startsWith('pi-lsp: 0 errors')) {
                    break;
                }
                await sleep(300);
            } while (Date.now() < counted);
            await shot(page, 'vscode-problems-unopened.png');
            step('problems of unopened sessions');
            await pressChord(page, 'Control+j'); // hide the panel again
        }

        // Open the session with Quick Open, as a person would.
        await pressChord(page, 'Control+p');
        const qi = page.locator('.quick-input-widget input');
        await qi.waitFor({ state: 'visible' });
        await qi.fill(spec.fileName);
        const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: spec.fileName }).first();
        await pick.waitFor({ state: 'visible' });
        await page.keyboard.press('Enter');
        await page.locator(`.tab[aria-label*="${spec.fileName}"], .tab:has-text("${spec.fileName}")`).first().waitFor();
        await page.locator('.editor-instance .view-lines .view-line').first().waitFor();
        await sleep(500);
        step('opened');
        R.languageMode = (await page.locator('.statusbar-item[id="status.editor.mode"]').first().innerText().catch(() => '')).trim();

        // Problems panel: wait until the PI codes are listed.
        await pressChord(page, 'Control+Shift+m');
        const panel = page.locator('.markers-panel');
        await panel.waitFor({ state: 'visible' });
        const deadline = Date.now() + T;
        let problems = '';
        while (Date.now() < deadline) {
            problems = await panel.innerText().catch(() => '');
            if ((spec.expectCodes || []).every((c) => problems.includes(c))) {
                break;
            }
            await sleep(500);
        }
        R.problemsText = problems;
        R.problemRows = await page
            .locator('.markers-panel .monaco-list-row')
            .evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') || r.textContent));
        R.statusProblems = (
            await page.locator('.statusbar-item[id="status.problems"]').first().getAttribute('aria-label').catch(() => '')
        ) || (await page.locator('.statusbar-item[id="status.problems"]').first().innerText().catch(() => ''));
        step('problems');
        await shot(page, 'vscode-problems.png');

        // The Session Tree and Context views in the explorer (fed by pi-lsp.tree / pi-lsp.context).
        const treePane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Session Tree' }) });
        // The views start collapsed below Outline/Timeline: expand them, collapse the others.
        for (const name of ['Outline', 'Timeline']) {
            const h = page.locator('.pane-header[aria-expanded="true"]', { hasText: name }).first();
            if (await h.isVisible().catch(() => false)) {
                await h.click();
            }
        }
        for (const name of ['Session Tree', 'Context']) {
            const h = page.locator('.pane-header[aria-expanded="false"]', { hasText: name }).first();
            if (await h.isVisible().catch(() => false)) {
                await h.click();
                await sleep(300);
            }
        }
        R.sessionTreeVisible = await treePane.isVisible().catch(() => false);
        if (R.sessionTreeVisible) {
            const rows = treePane.locator('.monaco-list-row');
            await rows.first().waitFor({ state: 'visible', timeout: 15000 }).catch(() => {});
            R.sessionTreeRows = await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('aria-label') || r.textContent));
        }
        const ctxPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Context/ }) });
        R.contextVisible = await ctxPane.isVisible().catch(() => false);
        if (R.contextVisible) {
            const rows = ctxPane.locator('.monaco-list-row');
            await rows.first().waitFor({ state: 'visible', timeout: 15000 }).catch(() => {});
            R.contextRows = await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('aria-label') || r.textContent));
        }
        step('views');

        // Hover on an entry line: keyboard "Show or Focus Hover" at the entry's first key.
        await pressChord(page, 'Control+1'); // focus the editor (code lenses cover its first line)
        await gotoLine(page, spec.hoverLine + 1, spec.hoverCol + 1);
        const hover = page.locator('.monaco-hover:not(.hidden) .monaco-hover-content, .monaco-hover:not(.hidden) .hover-contents').first();
        let hoverText = '';
        for (let attempt = 0; attempt < 3 && !hoverText.includes(spec.hoverNeedle || ''); attempt++) {
            await pressChord(page, 'Control+k', 'Control+i');
            await hover.waitFor({ state: 'visible', timeout: 15000 }).catch(() => {});
            await sleep(800);
            hoverText = await page
                .locator('.monaco-hover:not(.hidden)')
                .allInnerTexts()
                .then((t) => t.join('\n'))
                .catch(() => '');
        }
        R.hoverText = hoverText;
        step('hover');
        const s = await shot(page, 'vscode-hover.png');
        if (spec.readmeScreenshot) {
            fs.copyFileSync(s, spec.readmeScreenshot);
        }
        await page.keyboard.press('Escape');
        await sleep(200);

        // Go to definition from a parentId value (F12).
        if (spec.definition) {
            await gotoLine(page, spec.definition.line + 1, spec.definition.col + 1);
            await page.keyboard.press('F12');
            const want = spec.definition.expectLine + 1;
            const dl = Date.now() + 15000;
            let status = '';
            while (Date.now() < dl) {
                status = await page.locator('.statusbar-item[id="status.editor.selection"]').first().innerText().catch(() => '');
                if (status.includes(`Ln ${want},`)) {
                    break;
                }
                await sleep(250);
            }
            R.definitionStatus = status.trim();
            step('definition');
        }

        // A server setting changed at run time (piLsp.severity) reaches the server and the
        // Problems panel follows; then the original settings come back.
        if (spec.severityOff) {
            const code = spec.severityOff;
            const panelText = () => page.locator('.markers-panel').innerText().catch(() => '');
            fs.writeFileSync(
                spec.settingsPath,
                JSON.stringify({ ...spec.settings, 'piLsp.severity': { [code]: 'off' } }, null, 1),
            );
            let dl = Date.now() + 20000;
            let text = await panelText();
            while (Date.now() < dl && text.includes(code)) {
                await sleep(300);
                text = await panelText();
            }
            R.severityOffText = text;
            fs.writeFileSync(spec.settingsPath, JSON.stringify(spec.settings, null, 1));
            dl = Date.now() + 20000;
            text = await panelText();
            while (Date.now() < dl && !text.includes(code)) {
                await sleep(300);
                text = await panelText();
            }
            R.severityRestoredText = text;
            step('severity');
        }

        // Migration quick fix on the header line (Ctrl+. then the "Migrate session to v3" item).
        if (spec.migrate) {
            await gotoLine(page, 1, 30);
            await sleep(300);
            await pressChord(page, 'Control+.');
            const menu = page.locator('.action-widget, .context-view .monaco-list').first();
            await menu.waitFor({ state: 'visible', timeout: 15000 }).catch(() => {});
            await sleep(500);
            R.quickFixTitles = await page
                .locator('.action-widget .monaco-list-row, .action-widget .action-item')
                .allInnerTexts()
                .catch(() => []);
            const item = page.locator('.action-widget .monaco-list-row', { hasText: /Migrate session.* to v3/ }).first();
            if (await item.isVisible().catch(() => false)) {
                await item.click();
                const ml = Date.now() + 15000;
                while (Date.now() < ml) {
                    const lines = await editorText(page);
                    if (lines.length && /"version":\s*3/.test(lines[0])) {
                        break;
                    }
                    await sleep(250);
                }
                await pressChord(page, 'Control+s');
                await sleep(1000);
            } else {
                await page.keyboard.press('Escape');
            }
            R.linesAfterMigrate = (await editorText(page)).slice(0, 2);
            step('migrate');
            await shot(page, 'vscode-after-migrate.png');
        }

        // pi-lsp: Fork Session from Entry… with the cursor on an entry: a new session file opens.
        if (spec.fork) {
            await pressChord(page, 'Control+1');
            await gotoLine(page, spec.fork.line + 1, 1);
            await runCommand(page, 'pi-lsp: Fork Session from Entry');
            const active = page.locator('.tab.active');
            const dl = Date.now() + 20000;
            let label = '';
            while (Date.now() < dl) {
                label = (await active.first().getAttribute('aria-label').catch(() => '')) || '';
                if (label && !label.includes(spec.fileName) && label.includes('.jsonl')) {
                    break;
                }
                await sleep(300);
            }
            R.forkTab = label;
            R.forkToast = await page
                .locator('.notifications-toasts .notification-toast', { hasText: 'forked' })
                .first()
                .innerText()
                .catch(() => '');
            R.forkLines = (await editorText(page)).slice(0, 4);
            // the Session Tree follows the active session: the fork is one linear run
            const treeRows = page
                .locator('.pane', { has: page.locator('.pane-header', { hasText: 'Session Tree' }) })
                .locator('.monaco-list-row');
            const tl = Date.now() + 15000;
            while (Date.now() < tl) {
                R.forkTreeRows = await treeRows.evaluateAll((rs) => rs.map((r) => r.getAttribute('aria-label') || r.textContent));
                if (R.forkTreeRows.length === 3 && !R.forkTreeRows.some((r) => /^root/.test(r))) {
                    break;
                }
                await sleep(300);
            }
            step('fork');
            await shot(page, 'vscode-fork.png');
            await runCommand(page, 'Notifications: Clear All Notifications');
        }

        // The extension's own page, as someone who installed the .vsix opens it: its icon.
        if (spec.extensionPage) {
            await runCommand(page, 'Extensions: Show Installed Extensions');
            const item = page.locator('.extensions-viewlet .monaco-list-row', { hasText: spec.extensionPage }).first();
            await item.waitFor({ state: 'visible', timeout: T });
            await item.click();
            const icon = page.locator('.extension-editor .header img.icon').first();
            await icon.waitFor({ state: 'visible', timeout: T });
            const tl = Date.now() + 30000;
            while (Date.now() < tl && !(R.extensionIcon && R.extensionIcon.width > 0)) {
                R.extensionIcon = await icon.evaluate((img) => ({ src: img.src, width: img.naturalWidth })).catch(() => null);
                await sleep(500);
            }
            step('extension page');
            await shot(page, 'vscode-extension-page.png');
            await runCommand(page, 'View: Close All Editors');
        }

        if (spec.preview) {
            await drivePreview(page, spec.preview);
        }
        if (spec.previewLong) {
            await driveLongPreview(page, spec.previewLong);
        }
        if (spec.preview || spec.previewLong) {
            await runCommand(page, 'View: Toggle Primary Side Bar Visibility');
        }

        // pi-lsp: Show Session Chart on a second session: the webview draws the chart.
        if (spec.chart) {
            await pressChord(page, 'Control+p');
            const qo = page.locator('.quick-input-widget input');
            await qo.waitFor({ state: 'visible' });
            await qo.fill(spec.chart.fileName);
            await page.locator('.quick-input-list .monaco-list-row', { hasText: spec.chart.fileName }).first().waitFor({ state: 'visible' });
            await page.keyboard.press('Enter');
            await page.locator(`.tab.active[aria-label*="${spec.chart.fileName}"]`).first().waitFor();
            // the panel closed, the other explorer sections folded and the side bar widened:
            // room for the chart
            await runCommand(page, 'View: Close Panel');
            await runCommand(page, 'pi-lsp: Show Session Chart');
            // one at a time, found again after each click (a folded section moves the others:
            // clicking a list taken before waited out the whole timeout for each stale one)
            const open = page
                .locator('.sidebar .pane-header[aria-expanded="true"]')
                .filter({ hasNotText: 'Session Chart' });
            for (let i = 0; i < 10 && (await open.count()) > 0; i++) {
                await open.first().click({ timeout: 5000 }).catch(() => {});
            }
            const bar = await page.locator('.part.sidebar').boundingBox();
            if (bar) {
                await page.mouse.move(bar.x + bar.width + 1, bar.y + bar.height / 2);
                await page.mouse.down();
                await page.mouse.move(bar.x + 820, bar.y + bar.height / 2, { steps: 10 });
                await page.mouse.up();
            }
            await runCommand(page, 'pi-lsp: Show Session Chart');
            const found = await chartFrame(page);
            if (found) {
                R.chart = await found.frame.evaluate(() => ({
                    rendered: Number(document.body.dataset.rendered),
                    canvases: document.querySelectorAll('#chart canvas').length,
                    title: document.querySelector('h2')?.textContent ?? '',
                    cards: [...document.querySelectorAll('.card')].map((c) => c.innerText.replace(/\s*\n\s*/g, ': ')),
                }));
            }
            step('chart');
            await sleep(1000);
            const p = await shot(page, 'vscode-session-chart.png');
            if (spec.chart.readmeScreenshot) {
                fs.copyFileSync(p, spec.chart.readmeScreenshot);
            }
        }

        // Error messages: rewrite the (remote) settings so the server is an old pi-lsp, then
        // missing; the extension restarts on the change and must say what to do.
        for (const c of spec.brokenServers || []) {
            fs.writeFileSync(spec.settingsPath, JSON.stringify({ ...spec.settings, ...c.settings }, null, 1));
            const toast = page.locator('.notifications-toasts .notification-toast', { hasText: c.expect }).first();
            await toast.waitFor({ state: 'visible', timeout: 30000 }).catch(() => {});
            R[c.key] = await toast.innerText().catch(() => '');
            await shot(page, `vscode-${c.key}.png`);
            // dismiss all toasts before the next case
            await runCommand(page, 'Notifications: Clear All Notifications');
            step(c.key);
        }
        if (spec.brokenServers) {
            fs.writeFileSync(spec.settingsPath, JSON.stringify(spec.settings, null, 1));
        }
    } catch (e) {
        R.errors.push(String(e && e.stack ? e.stack : e));
        await shot(page, 'vscode-failure.png').catch(() => {});
    } finally {
        await context.close().catch(() => {});
    }
}

main()
    .catch((e) => R.errors.push(String(e && e.stack ? e.stack : e)))
    .finally(() => {
        fs.writeFileSync(outPath, JSON.stringify(R, null, 1));
    });
