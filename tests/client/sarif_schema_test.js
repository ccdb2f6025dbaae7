// `argus check --format=sarif` against the SARIF 2.1.0 JSON schema (OASIS's,
// as shipped in @microsoft/jest-sarif; validated with ajv): the corpus kernels
// (every diagnostic kind), two examples and a file that cannot be read, in one log. Also what
// the schema cannot say: a result per diagnostic of the JSON output, rules
// with help for the codes, the counterexample and the "written here" location.
//
//   node tests/client/sarif_schema_test.js ARGUS_BINARY SOURCE_DIR
'use strict';

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const Ajv = require('ajv');

const [argus, sourceDir] = process.argv.slice(2);
if (!argus || !sourceDir) {
  console.error('usage: node sarif_schema_test.js ARGUS_BINARY SOURCE_DIR');
  process.exit(2);
}

function argusFiles(dir) {
  return fs
    .readdirSync(path.join(sourceDir, dir))
    .filter((f) => f.endsWith('.argus'))
    .sort()
    .map((f) => path.join(dir, f));
}

// argus exits 1 when there are error diagnostics and 2 for an unreadable file.
function check(format, files) {
  try {
    return execFileSync(argus, ['check', '--format=' + format, ...files], {
      cwd: sourceDir,
      maxBuffer: 256 << 20,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();
  } catch (e) {
    if (e.status !== 1 && e.status !== 2) throw e;
    return e.stdout.toString();
  }
}

const schemaPath = require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
const ajv = new Ajv({ schemaId: 'id', allErrors: true, format: 'full', logger: false });
ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-04.json'));
const validate = ajv.compile(schema);

// The corpus but its long kernels (flash attention, MoE, the pipelined mma/wgmma and the WS
// GEMM variants: every code and check they report is reported by a shorter corpus file too, and
// the checker tests run them), the external suite, and two examples. The log's shape depends
// on the kinds of diagnostics, not on how long a kernel takes to check; the whole corpus was
// 78 s of one core, a third of it in these families.
const long = /^(flash_attn|moe_|mma_stage|wgmma_refill|gemm_ws_|persistent_)/;
const files = [
  ...argusFiles('tests/checker/corpus').filter((f) => !long.test(path.basename(f))),
  ...argusFiles('tests/checker/external'),
  'examples/gemm_tiled.argus',
  'examples/softmax.argus',
];
const missing = 'no such dir/missing kernel.argus';
const log = JSON.parse(check('sarif', [...files, missing]));
const valid = validate(log);
assert.ok(valid, 'not valid SARIF 2.1.0:\n' + JSON.stringify(validate.errors, null, 1).slice(0, 4000));

const run = log.runs[0];
assert.equal(run.tool.driver.name, 'argus');
const rules = new Map(run.tool.driver.rules.map((r, i) => [r.id, { rule: r, index: i }]));
for (const [id, { rule }] of rules) {
  assert.ok(rule.shortDescription.text.length > 0, id);
  assert.ok(rule.help && rule.help.text.length > 20, 'no help for ' + id);
}

// A result per diagnostic, as the JSON output has them (on a few files: the
// corpus is checked once already).
const some = [
  ...files.filter((f) => f.startsWith('examples/')),
  ...files.filter((f) => /missing_barrier|race_at|bytes_/.test(f)),
];
const json = JSON.parse(check('json', some));
for (const f of json.files) {
  const uri = f.path.split('/').map(encodeURIComponent).join('/');
  const results = run.results.filter((r) => r.locations[0].physicalLocation.artifactLocation.uri === uri);
  assert.equal(results.length, f.diagnostics.length, f.path);
  results.forEach((r, i) => {
    assert.equal(r.ruleId, f.diagnostics[i].code, f.path);
    assert.equal(r.message.text, f.diagnostics[i].message, f.path);
  });
}
assert.ok(run.results.length > 50, 'the corpus has planted bugs: ' + run.results.length);
for (const r of run.results) {
  assert.equal(r.ruleIndex, rules.get(r.ruleId).index, r.ruleId);
  const region = r.locations[0].physicalLocation.region;
  assert.ok(region.startLine >= 1 && region.startColumn >= 1, JSON.stringify(r));
}
const race = run.results.find(
  (r) => r.ruleId === 'E0902' && r.locations[0].physicalLocation.artifactLocation.uri.endsWith('missing_barrier_before_reuse.argus'),
);
assert.ok(race, 'the planted race of missing_barrier_before_reuse.argus');
assert.equal(race.level, 'error');
assert.equal(race.properties.counterexample.kind, 'race');
assert.ok(race.relatedLocations.length >= 1 && race.relatedLocations[0].message.text.length > 0);

// The unreadable file: a notification, and the run did not succeed.
const invocation = run.invocations[0];
assert.equal(invocation.executionSuccessful, false);
const note = invocation.toolExecutionNotifications[0];
assert.equal(note.locations[0].physicalLocation.artifactLocation.uri, 'no%20such%20dir/missing%20kernel.argus');
console.log('sarif: ' + run.results.length + ' results from ' + files.length + ' files, schema-valid');
