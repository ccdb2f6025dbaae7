// The extension as VS Code runs it, against the real `argus lsp` (ARGUS_BIN):
// VS Code cannot run on CI's machines, so test/fake_vscode.js stands in for
// the `vscode` module and the bundle (dist/extension.js, `npm run build`)
// runs with vscode-languageclient as it ships. Activation starts the server
// with the extension's command line and capabilities; an opened document gets
// its diagnostics; the status bar shows the summary of the kernel under the
// cursor; hover pictures are command links the hover trusts, and only those.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const Module = require('node:module');
const path = require('node:path');

const fake = path.join(__dirname, 'fake_vscode.js');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? fake : resolve.call(this, request, ...rest);
};
const vscode = require('vscode');
const { state, events, textDocument } = vscode.__test;

const binary = process.env.ARGUS_BIN;

async function waitFor(what, predicate, seconds = 60) {
  const deadline = Date.now() + seconds * 1000;
  while (!predicate()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A kernel with a race (no barrier between the copy and the reads) and a clean one.
const text = [
  '@kernel(grid=1, block=64)',
  'def racy(X: Tensor((64,), f32), Y: Tensor((64,), f32)):',
  '    s = make_shared((64,), f32)',
  '    t = thread_id()',
  '    s[t] = X[t]',
  '    Y[t] = s[63 - t]',
  '',
  '',
  '@kernel(grid=cdiv(N, 64), block=64)',
  'def copy(X: Tensor((N,), f32), Y: Tensor((N,), f32), N: i32):',
  '    tag(X, ("i",))',
  '    tag(Y, ("i",))',
  '    i = block_id() * 64 + thread_id()',
  '    if i < N:',
  '        v = X[i]',
  '        assert_tag(v, {"i": i})',
  '        Y[i] = v',
  '',
  '',
  '@kernel(grid=1, block=32)',
  'def mma(A: Tensor((16, 16), bf16)):',
  '    a = make_local((8,), bf16)',
  '    b = make_local((4,), bf16)',
  '    acc = full((4,), 0.0, f32)',
  '    acc = nvvm.mma_m16n8k16_bf16_f32(a, b, acc)',
  '',
].join('\n');

test('the extension starts argus lsp, shows diagnostics, the summary under the cursor and layout links', { skip: !binary && 'ARGUS_BIN is not set' }, async () => {
  state.settings['argus.server.path'] = binary;
  const extension = require('../dist/extension.js');
  const context = { subscriptions: [] };
  await extension.activate(context);
  const status = state.statusItems[0];
  await waitFor('the server to run', () => status.text === '$(check) Argus');
  assert.match(status.tooltip, /argus lsp: Running/);

  const document = textDocument('/tmp/argus-extension-test/kernels.argus', text);
  vscode.workspace.textDocuments.push(document);
  events.openDocument.fire(document);
  const uri = document.uri.toString();
  await waitFor('the race diagnostic', () => (state.diagnostics.get(uri) || []).some((d) => String(d.code) === 'E0902'));

  const editor = { document, selection: new vscode.Selection(new vscode.Position(4, 0), new vscode.Position(4, 0)) };
  vscode.window.activeTextEditor = editor;
  events.selection.fire({ textEditor: editor });
  await waitFor('the racy kernel in the status bar', () => status.text === '$(error) racy: races violated');
  assert.match(status.tooltip, /^racy: races violated/);

  editor.selection = new vscode.Selection(new vscode.Position(14, 4), new vscode.Position(14, 4));
  events.selection.fire({ textEditor: editor });
  await waitFor('the copy kernel in the status bar', () => status.text.startsWith('$(check) copy:'));
  assert.equal(status.text, '$(check) copy: 4/5 proved for all sizes');

  // Outside every kernel: the server's state again.
  editor.selection = new vscode.Selection(new vscode.Position(7, 0), new vscode.Position(7, 0));
  events.selection.fire({ textEditor: editor });
  await waitFor('the server state', () => status.text === '$(check) Argus');

  // The hover of a matrix instruction links its operand layouts to argus.showLayout,
  // which the hover trusts (and nothing else); the command draws the picture.
  assert.ok(state.hoverProvider, 'a hover provider was registered');
  const hover = await state.hoverProvider.provideHover(document, new vscode.Position(24, 16), new vscode.CancellationTokenSource().token);
  const markdown = hover.contents.find((c) => c instanceof vscode.MarkdownString);
  assert.ok(markdown, 'hover markdown');
  assert.match(markdown.value, /\[tv\(nvvm\.mma_m16n8k16_bf16_f32, A\)\]\(command:argus\.showLayout\?%5B%22tv%28/);
  assert.deepEqual(markdown.isTrusted, { enabledCommands: ['argus.showLayout'] });
  const link = /command:argus\.showLayout\?([^)\s]+)/.exec(markdown.value)[1];
  await state.commands.get('argus.showLayout')(...JSON.parse(decodeURIComponent(link)));
  const panel = state.webviews.at(-1);
  assert.equal(panel.title, 'Layout: tv(nvvm.mma_m16n8k16_bf16_f32, A)');
  assert.match(panel.webview.html, /<img alt="layout" src="data:image\/svg\+xml;base64,/);

  await extension.deactivate();
});
