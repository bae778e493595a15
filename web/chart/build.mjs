// Bundles src/page.js with the parts of Apache ECharts it uses into one minified script,
// ../../pi_lsp/web/stats_chart.js, which pi-lsp inlines into its stats page (and so into the
// VS Code Session Chart). Run `npm ci && npm run build` here after changing src/ or a version.
// `node build.mjs OUT` writes elsewhere (the tests compare a fresh build with the committed one).
import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';

const echarts = JSON.parse(readFileSync(new URL('./node_modules/echarts/package.json', import.meta.url)));
await esbuild.build({
    entryPoints: ['src/page.js'],
    bundle: true,
    format: 'iife',
    target: 'es2020',
    minify: true,
    legalComments: 'eof',
    banner: {
        js: `/* pi-lsp stats page (web/chart/src/page.js) with Apache ECharts ${echarts.version} (Apache-2.0, https://echarts.apache.org) and ZRender (BSD-3-Clause). */`,
    },
    outfile: process.argv[2] ?? new URL('../../pi_lsp/web/stats_chart.js', import.meta.url).pathname,
    logLevel: 'warning',
});
