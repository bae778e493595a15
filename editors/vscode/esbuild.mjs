// Bundles the extension and vscode-languageclient into one CommonJS file (out/extension.js)
// and the session preview's webview script into one browser script (out/preview.js).
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const common = {
    bundle: true,
    minify: production,
    sourcemap: !production,
    sourcesContent: false,
    logLevel: 'warning',
};

const contexts = await Promise.all([
    esbuild.context({
        ...common,
        entryPoints: ['src/extension.ts'],
        format: 'cjs',
        platform: 'node',
        target: 'node20',
        outfile: 'out/extension.js',
        external: ['vscode'],
    }),
    esbuild.context({
        ...common,
        entryPoints: ['webview/preview.ts'],
        format: 'iife',
        platform: 'browser',
        target: 'chrome120',
        outfile: 'out/preview.js',
    }),
]);
if (watch) {
    await Promise.all(contexts.map((ctx) => ctx.watch()));
} else {
    await Promise.all(contexts.map((ctx) => ctx.rebuild()));
    await Promise.all(contexts.map((ctx) => ctx.dispose()));
}
