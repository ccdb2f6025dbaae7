// The packaged extension (dist/argus.vsix, a zip made by @vscode/vsce) holds
// what the manifest declares: the entry point, the grammar, the language
// configuration, and no source maps, tests or node_modules.
'use strict';

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
const vsix = path.join(here, 'dist/argus.vsix');
const manifest = require(path.join(here, 'package.json'));
// The zip's names, listed by Python's zipfile (on every CI machine; unzip may not be).
const names = JSON.parse(
  execFileSync('python3', ['-c', 'import json,sys,zipfile; print(json.dumps(zipfile.ZipFile(sys.argv[1]).namelist()))', vsix]).toString(),
);
const inside = (p) => 'extension/' + p.replace(/^\.\//, '');
const wanted = [
  manifest.main,
  ...manifest.contributes.grammars.map((g) => g.path),
  ...manifest.contributes.languages.map((l) => l.configuration),
  './package.json',
];
for (const file of wanted) assert.ok(names.includes(inside(file)), `${file} is not in the vsix: ${names.join(', ')}`);
for (const name of names) {
  assert.ok(!/node_modules|\/test\/|\/src\/|\.map$|\.ts$/.test(name), `${name} should not be packaged`);
}
assert.ok(names.includes('extension.vsixmanifest'));
console.log(`vsix: ${names.length} files, the manifest's entry point, grammar and language configuration among them`);
