// The README packaged into the .vsix: README.md without its screenshot (a relative image needs a
// repository URL for vsce to rewrite it; the marketplace page does not need the picture).
import { mkdirSync, readFileSync, writeFileSync } from 'fs';

const text = readFileSync('README.md', 'utf8')
    .split('\n')
    .filter((line) => !/^!\[.*\]\(screenshot[^)]*\)\s*$/.test(line))
    .join('\n');
mkdirSync('out', { recursive: true });
writeFileSync('out/README.md', text);
