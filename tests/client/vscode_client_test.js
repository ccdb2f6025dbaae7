// A VS Code-shaped client against the real `argus lsp`: Microsoft's own LSP
// client libraries (vscode-languageserver-protocol, vscode-jsonrpc from npm),
// the capabilities vscode-languageclient announces (pull diagnostics,
// workspace/configuration, progress), and the flows an editor runs: open,
// pull, type, hover, a command, shutdown. Every assertion that fails prints
// what came back.
//
//   node tests/client/vscode_client_test.js ARGUS_BINARY EXAMPLES_DIR
'use strict';

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const lsp = require('vscode-languageserver-protocol/node');

const [argus, examples] = process.argv.slice(2);
if (!argus || !examples) {
  console.error('usage: node vscode_client_test.js ARGUS_BINARY EXAMPLES_DIR');
  process.exit(2);
}

const timer = setTimeout(() => {
  console.error('FAIL: the session did not finish within 120 s');
  process.exit(1);
}, 120000);

async function main() {
  const server = spawn(argus, ['lsp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (chunk) => (stderr += chunk));
  const connection = lsp.createProtocolConnection(
    new lsp.StreamMessageReader(server.stdout),
    new lsp.StreamMessageWriter(server.stdin),
  );
  const pushed = [];
  let configurationRequests = 0;
  connection.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => pushed.push(p));
  connection.onRequest(lsp.ConfigurationRequest.type, (params) => {
    ++configurationRequests;
    assert.equal(params.items[0].section, 'argus');
    return [{ checker: { lints: true } }];
  });
  connection.onRequest(lsp.WorkDoneProgressCreateRequest.type, () => null);
  connection.onRequest(lsp.DiagnosticRefreshRequest.type, () => null);
  connection.listen();

  const init = await connection.sendRequest(lsp.InitializeRequest.type, {
    processId: process.pid,
    rootUri: null,
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      textDocument: {
        diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        synchronization: { didSave: true },
      },
      workspace: { configuration: true, diagnostics: { refreshSupport: true } },
      window: { workDoneProgress: true },
    },
    initializationOptions: {},
  });
  assert.ok(init.capabilities.diagnosticProvider, 'no diagnosticProvider');
  assert.equal(init.capabilities.positionEncoding, 'utf-16');
  await connection.sendNotification(lsp.InitializedNotification.type, {});

  const file = path.join(examples, 'gemm_naive.argus');
  const uri = 'file://' + file;
  const text = fs.readFileSync(file, 'utf8');
  await connection.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'argus', version: 1, text },
  });

  // Pull: a full report with an id, then "unchanged" for that id.
  const first = await connection.sendRequest(lsp.DocumentDiagnosticRequest.type, {
    textDocument: { uri },
  });
  assert.equal(first.kind, 'full', JSON.stringify(first));
  assert.ok(first.resultId, 'no resultId');
  assert.ok(!first.items.some((d) => d.severity === 1), JSON.stringify(first.items));
  const again = await connection.sendRequest(lsp.DocumentDiagnosticRequest.type, {
    textDocument: { uri },
    previousResultId: first.resultId,
  });
  assert.deepEqual(again, { kind: 'unchanged', resultId: first.resultId });

  // Hover on the kernel's name: the verification summary.
  const lines = text.split('\n');
  const defLine = lines.findIndex((l) => l.startsWith('def gemm_naive'));
  const hover = await connection.sendRequest(lsp.HoverRequest.type, {
    textDocument: { uri },
    position: { line: defLine, character: 6 },
  });
  assert.ok(hover && JSON.stringify(hover.contents).includes('bounds'), JSON.stringify(hover));

  // Half-typed: `m = block_id(1) * BM + thread_id(1)` cut after `* `. Its
  // errors stay on that line; the rest keeps the last good analysis.
  const typed = lines.findIndex((l) => l.trim().startsWith('m = block_id(1)'));
  const cut = lines[typed].indexOf('* ') + 2;
  await connection.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [
      {
        range: {
          start: { line: typed, character: cut },
          end: { line: typed, character: lines[typed].length },
        },
        text: '',
      },
    ],
  });
  const half = await connection.sendRequest(lsp.DocumentDiagnosticRequest.type, {
    textDocument: { uri },
  });
  const errors = half.items.filter((d) => d.severity === 1);
  assert.ok(errors.length > 0, 'a half-typed line has no error: ' + JSON.stringify(half));
  for (const e of errors)
    assert.ok(Math.abs(e.range.start.line - typed) <= 1, 'an error far from the edit: ' + JSON.stringify(e));

  // A command, as the extension's Layout Calculator runs it.
  const layout = await connection.sendRequest(lsp.ExecuteCommandRequest.type, {
    command: 'argus.layout',
    arguments: [{ expr: '(4,2):(2,1)' }],
  });
  assert.ok(layout && layout.result, JSON.stringify(layout));

  // A pull client is never pushed the same diagnostics.
  assert.deepEqual(pushed, [], 'pushed to a pull client: ' + JSON.stringify(pushed).slice(0, 400));
  assert.ok(configurationRequests >= 1, 'workspace/configuration was never asked');

  await connection.sendRequest(lsp.ShutdownRequest.type);
  await connection.sendNotification(lsp.ExitNotification.type);
  const code = await new Promise((resolve) => server.on('exit', resolve));
  assert.equal(code, 0, 'exit status ' + code + '; stderr: ' + stderr.slice(-2000));
  connection.dispose();
}

main().then(
  () => {
    clearTimeout(timer);
    console.log('vscode client: all flows passed');
  },
  (error) => {
    console.error('FAIL:', error && error.stack ? error.stack : error);
    process.exit(1);
  },
);
