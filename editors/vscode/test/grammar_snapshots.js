// Scope snapshots of every example (examples/*.argus) with the TextMate
// grammar: test/snap/NAME.argus.snap holds what vscode-tmgrammar-snap printed
// for it. An example without a snapshot, or whose scopes changed, fails.
//
//   node test/grammar_snapshots.js            compare
//   node test/grammar_snapshots.js --update   rewrite the snapshots (then read the diff)
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
const examples = path.resolve(here, '../../examples');
const snaps = path.join(here, 'test/snap');
const update = process.argv.includes('--update');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'argus-snap-'));
try {
  const names = fs.readdirSync(examples).filter((f) => f.endsWith('.argus')).sort();
  if (names.length === 0) throw new Error('no examples in ' + examples);
  for (const name of names) {
    fs.copyFileSync(path.join(examples, name), path.join(work, name));
    const snap = path.join(snaps, name + '.snap');
    if (fs.existsSync(snap)) fs.copyFileSync(snap, path.join(work, name + '.snap'));
    else if (!update) throw new Error(`no snapshot for ${name}: run node test/grammar_snapshots.js --update`);
  }
  const args = ['-g', path.join(here, 'syntaxes/argus.tmLanguage.json'), '-s', 'source.argus'];
  if (update) args.push('--updateSnapshot');
  args.push(path.join(work, '*.argus'));
  execFileSync(path.join(here, 'node_modules/.bin/vscode-tmgrammar-snap'), args, {
    cwd: here,
    stdio: 'inherit',
  });
  if (update) {
    fs.mkdirSync(snaps, { recursive: true });
    for (const name of names) fs.copyFileSync(path.join(work, name + '.snap'), path.join(snaps, name + '.snap'));
  }
  console.log(`grammar snapshots: ${names.length} examples ${update ? 'written' : 'unchanged'}`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
