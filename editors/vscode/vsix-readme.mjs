// The README packaged into the .vsix: README.md with its screenshot inlined as a data: URI.
// VS Code's page of an installed extension does not load a relative image from the package,
// and there is no published repository for an https one.
import { mkdirSync, readFileSync, writeFileSync } from 'fs';

const text = readFileSync('README.md', 'utf8').replace(
    /^(!\[[^\]]*\]\()(screenshot\.png)(\)\s*)$/m,
    (_, head, file, tail) => `${head}data:image/png;base64,${readFileSync(file).toString('base64')}${tail}`,
);
if (!text.includes('data:image/png;base64,')) {
    throw new Error('README.md has no ![...](screenshot.png) line to inline');
}
mkdirSync('out', { recursive: true });
writeFileSync('out/README.md', text);
