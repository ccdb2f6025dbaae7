// The extension's decisions from settings (src/settings.ts), in plain Node
// (node --test): trust rules, the server's command line, the settings the
// server gets, the escaping of what webviews show.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  benchmarkTable,
  effective,
  historyLines,
  kernelAt,
  kernelStatus,
  KernelVerification,
  literalGlob,
  serverCommand,
  serverSettings,
} from '../src/settings';

test('an untrusted workspace cannot pick the server binary or its arguments', () => {
  const path = { defaultValue: '', globalValue: '/opt/argus/bin/argus', workspaceValue: './evil.sh' };
  const args = { defaultValue: [], workspaceValue: ['--allow-runner=*'] };
  const untrusted = serverCommand(path, args, {}, false);
  assert.equal(untrusted.command, '/opt/argus/bin/argus');
  assert.deepEqual(untrusted.args, ['lsp']);
  const trusted = serverCommand(path, args, {}, true);
  assert.equal(trusted.command, './evil.sh');
  assert.deepEqual(trusted.args, ['lsp', '--allow-runner=*']);
  assert.equal(serverCommand({ defaultValue: '' }, {}, {}, true).command, 'argus');
});

test('only a runner template from user settings is allowed, as a literal glob', () => {
  const user = serverCommand({}, {}, { globalValue: 'ssh gpu-[1] argus-runner {artifact} *' }, false);
  assert.deepEqual(user.args, ['lsp', '--allow-runner=ssh gpu-\\[1\\] argus-runner {artifact} \\*']);
  // A workspace's template is not allowed, trusted or not: the server refuses it.
  for (const trusted of [true, false]) {
    const workspace = serverCommand({}, {}, { workspaceValue: 'sh -c "touch pwned"' }, trusted);
    assert.deepEqual(workspace.args, ['lsp']);
  }
  assert.equal(literalGlob('a?b'), 'a\\?b');
});

test('effective: the most specific value when trusted, the user value otherwise', () => {
  const s = { defaultValue: 1, globalValue: 2, workspaceValue: 3, workspaceFolderValue: 4 };
  assert.equal(effective(s, true), 4);
  assert.equal(effective(s, false), 2);
  assert.equal(effective({ defaultValue: 1 }, false), 1);
});

test('the server settings: checker values set, an empty runner left out', () => {
  assert.deepEqual(
    serverSettings({
      target: 'gfx942',
      runner: '  ',
      benchmarkTimeoutSeconds: 60,
      checker: { timeLimitMs: 1000, lints: false, symbolic: undefined },
    }),
    { checker: { timeLimitMs: 1000, lints: false }, target: 'gfx942', benchmarkTimeoutSeconds: 60 },
  );
  assert.equal(serverSettings({ runner: 'ssh h {artifact}', checker: {} }).runner, 'ssh h {artifact}');
});

test('the benchmark table escapes what the runner printed', () => {
  const html = benchmarkTable([{ kernel: '<img src=x onerror=alert(1)>', sizes: { M: 4096 }, correct: true }]);
  assert.ok(!html.includes('<img'), html);
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
  assert.ok(html.includes('<td>M=4096</td>'));
  assert.ok(html.includes('<td>true</td>'));
});

test('an explain history becomes one line per step', () => {
  const lines = historyLines([
    { action: 'load', program_point: { line: 3, character: 4 }, tensor: 'A', space: 'global', tag: { m: 0 } },
    { action: 'violation', program_point: { line: 9, character: 8 } },
  ]);
  assert.deepEqual(lines, [
    { line: 3, character: 4, label: 'load global A {"m":0}' },
    { line: 9, character: 8, label: 'violation' },
  ]);
});

test('the status bar shows the verification summary of the kernel under the cursor', () => {
  const kernels: KernelVerification[] = [
    {
      kernel: 'copy',
      range: { start: { line: 0 }, end: { line: 8 } },
      line: 'copy: bounds, races, tags, stores proved for all sizes; initialization checked at 2 instances',
      summary: {
        unproven: 0,
        properties: {
          bounds: { verdict: 'all-sizes' },
          races: { verdict: 'all-sizes' },
          tags: { verdict: 'all-sizes' },
          stores: { verdict: 'all-sizes' },
          initialization: { verdict: 'instances' },
          operands: { verdict: 'absent' },
        },
      },
    },
    {
      kernel: 'bad',
      range: { start: { line: 11 }, end: { line: 20 } },
      line: 'bad: tags violated',
      summary: { unproven: 1, properties: { tags: { verdict: 'violated' }, bounds: { verdict: 'instances' } } },
    },
    { kernel: 'late', range: { start: { line: 22 }, end: { line: 30 } }, line: null, summary: null },
  ];
  assert.equal(kernelAt(kernels, 4)?.kernel, 'copy');
  assert.equal(kernelAt(kernels, 10), undefined);
  assert.deepEqual(kernelStatus(kernels[0]), {
    text: '$(check) copy: 4/5 proved for all sizes',
    tooltip: kernels[0].line,
  });
  assert.equal(kernelStatus(kernels[1]).text, '$(error) bad: tags violated');
  assert.equal(kernelStatus(kernels[2]).text, '$(sync~spin) late');
  const uncovered = { ...kernels[1], summary: { unproven: 2, properties: { tags: { verdict: 'instances' } } } };
  assert.equal(kernelStatus(uncovered).text, '$(warning) bad: 2 unproven (W0901)');
});
