// The status-bar count of pi-lsp's problems: every session the server reports, open or not
// (workspace diagnostics), so a folder of sessions shows at a glance how many will not resume.
import * as vscode from 'vscode';

const SOURCE = 'pi-lsp';

/** Errors, warnings and the sessions holding them, over everything pi-lsp reported. */
export function countProblems(): { errors: number; warnings: number; files: number } {
    let errors = 0;
    let warnings = 0;
    let files = 0;
    for (const [, diagnostics] of vscode.languages.getDiagnostics()) {
        let mine = 0;
        for (const d of diagnostics) {
            if (d.source !== SOURCE) {
                continue;
            }
            if (d.severity === vscode.DiagnosticSeverity.Error) {
                errors++;
                mine++;
            } else if (d.severity === vscode.DiagnosticSeverity.Warning) {
                warnings++;
                mine++;
            }
        }
        if (mine > 0) {
            files++;
        }
    }
    return { errors, warnings, files };
}

/** A status-bar item with the count; a click opens the Problems panel. */
export function registerProblemCount(): vscode.Disposable {
    const item = vscode.window.createStatusBarItem('piLsp.problems', vscode.StatusBarAlignment.Left, 10);
    item.name = 'pi-lsp problems';
    item.command = 'workbench.actions.view.problems';
    let timer: NodeJS.Timeout | undefined;
    const update = (): void => {
        const { errors, warnings, files } = countProblems();
        item.text = `$(error) ${errors} $(warning) ${warnings} pi`;
        const label = `pi-lsp: ${errors} errors, ${warnings} warnings in ${files} sessions`;
        item.tooltip = `${label} (open or not). Click for the Problems panel.`;
        item.accessibilityInformation = { label };
        item.show();
    };
    update();
    const listener = vscode.languages.onDidChangeDiagnostics(() => {
        if (timer) {
            clearTimeout(timer);
        }
        timer = setTimeout(update, 300);
    });
    return vscode.Disposable.from(item, listener, {
        dispose: () => {
            if (timer) {
                clearTimeout(timer);
            }
        },
    });
}
