// The Argus extension: `argus lsp` through vscode-languageclient for .argus
// files, the server's commands (compile, benchmark, generated code, explain,
// layout) and a status bar item: the server's state, and the verification
// summary of the kernel under the cursor. Decisions from settings and what the
// status shows are in settings.ts.
import * as vscode from 'vscode';
import {
  ClientCapabilities,
  FeatureState,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';
import {
  KernelVerification,
  benchmarkTable,
  escapeHtml,
  historyLines,
  kernelAt,
  kernelStatus,
  serverCommand,
  serverSettings,
} from './settings';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: vscode.StatusBarItem;
let serverStatus = { text: 'Argus', tooltip: 'argus lsp' };

// Hover pictures of layouts are links to this command (the server sends them
// to a client that declares experimental.argusLayoutPictures); hovers trust it
// and no other command.
const showLayoutCommand = 'argus.showLayout';
const layoutPictures: StaticFeature = {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = { ...(capabilities.experimental as object | undefined), argusLayoutPictures: true };
  },
  initialize(): void {},
  getState(): FeatureState {
    return { kind: 'static' };
  },
  clear(): void {},
};

function values() {
  const c = vscode.workspace.getConfiguration('argus');
  return {
    target: c.get<string>('target'),
    runner: c.get<string>('runner'),
    benchmarkTimeoutSeconds: c.get<number>('benchmark.timeoutSeconds'),
    checker: {
      timeLimitMs: c.get<number>('checker.timeLimitMs'),
      queryTimeoutMs: c.get<number>('checker.queryTimeoutMs'),
      unrollBound: c.get<number>('checker.unrollBound'),
      maxBlocks: c.get<number>('checker.maxBlocks'),
      lints: c.get<boolean>('checker.lints'),
      symbolic: c.get<boolean>('checker.symbolic'),
    },
  };
}

function command() {
  const c = vscode.workspace.getConfiguration('argus');
  return serverCommand(
    c.inspect<string>('server.path') ?? {},
    c.inspect<string[]>('server.args') ?? {},
    c.inspect<string>('runner') ?? {},
    vscode.workspace.isTrusted,
  );
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const { command: binary, args } = command();
  const serverOptions: ServerOptions = { command: binary, args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: 'argus' }],
    initializationOptions: serverSettings(values()),
    outputChannel: output,
    middleware: {
      provideHover: async (document, position, token, next) => {
        const hover = await next(document, position, token);
        for (const content of hover?.contents ?? []) {
          if (content instanceof vscode.MarkdownString) {
            content.isTrusted = { enabledCommands: [showLayoutCommand] };
          }
        }
        return hover;
      },
      workspace: {
        // The server pulls its `argus` section: the same shape as initializationOptions.
        configuration: (params, token, next) =>
          params.items.map((item) => (item.section === 'argus' ? serverSettings(values()) : next(params, token))),
      },
    },
  };
  client = new LanguageClient('argus', 'Argus', serverOptions, clientOptions);
  client.registerFeature(layoutPictures);
  context.subscriptions.push(
    client.onDidChangeState((e) => {
      serverStatus = {
        text: e.newState === State.Running ? '$(check) Argus' : e.newState === State.Starting ? '$(sync~spin) Argus' : '$(error) Argus',
        tooltip: `argus lsp: ${State[e.newState]} (${binary} ${args.join(' ')})`,
      };
      scheduleStatus();
    }),
  );
  try {
    await client.start();
  } catch (error) {
    const message =
      `Argus: cannot start '${binary}' (${String(error)}). Build it with \`bash scripts/dev.sh demo\` ` +
      'and set "argus.server.path" in your user settings to build/cli/argus, or put argus on PATH.';
    void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
      if (choice) {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'argus.server.path');
      }
    });
  }
}

async function execute<T>(name: string, args: Record<string, unknown>): Promise<T | undefined> {
  if (!client || !client.isRunning()) {
    void vscode.window.showErrorMessage('Argus: the language server is not running.');
    return undefined;
  }
  try {
    return (await client.sendRequest('workspace/executeCommand', { command: name, arguments: [args] })) as T;
  } catch (error) {
    void vscode.window.showErrorMessage(`Argus: ${name} failed: ${String((error as Error).message ?? error)}`);
    return undefined;
  }
}

function argusEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'argus') {
    void vscode.window.showWarningMessage('Argus: open an .argus file first.');
    return undefined;
  }
  return editor;
}

interface CompileResult {
  ok?: boolean;
  status?: string;
  artifact?: string;
  error?: string;
  source?: string;
  target?: string;
}

async function compileKernel(): Promise<void> {
  const editor = argusEditor();
  if (!editor) return;
  const result = await execute<CompileResult>('argus.compile', {
    uri: editor.document.uri.toString(),
    target: values().target,
  });
  if (!result) return;
  output.appendLine(`compile ${editor.document.fileName}: ${result.status} ${result.artifact ?? ''} ${result.error ?? ''}`);
  if (result.ok) {
    void vscode.window.showInformationMessage(`Argus: compiled into ${result.artifact}`);
  } else {
    void vscode.window.showWarningMessage(`Argus: compile ${result.status}: ${result.error ?? ''}`);
  }
}

async function showGeneratedCode(): Promise<void> {
  const editor = argusEditor();
  if (!editor) return;
  const result = await execute<CompileResult>('argus.compile', {
    uri: editor.document.uri.toString(),
    target: values().target,
    emitOnly: true,
  });
  if (!result || result.source === undefined) return;
  const doc = await vscode.workspace.openTextDocument({ content: result.source, language: 'cpp' });
  await vscode.window.showTextDocument(doc, vscode.ViewColumn.Beside, true);
}

async function benchmarkKernel(): Promise<void> {
  const editor = argusEditor();
  if (!editor) return;
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Argus: benchmark', cancellable: false },
    () =>
      execute<{ ok?: boolean; stage?: string; error?: string; command?: string; results?: Array<Record<string, unknown>> }>(
        'argus.benchmark',
        { uri: editor.document.uri.toString(), target: values().target },
      ),
  );
  if (!result) return;
  output.appendLine(`benchmark: ${result.command ?? ''}`);
  output.appendLine(JSON.stringify(result.results ?? [], null, 1));
  if (!result.ok) {
    output.appendLine(`failed at ${result.stage}: ${result.error}`);
    output.show(true);
  }
  const panel = vscode.window.createWebviewPanel('argusBenchmark', 'Argus benchmark', vscode.ViewColumn.Beside, {});
  panel.webview.html =
    `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">` +
    `<style>td,th{padding:2px 8px;border-bottom:1px solid #8884}</style></head><body>` +
    `<p>${escapeHtml(result.command ?? '')}</p>` +
    (result.ok ? '' : `<p>failed at ${escapeHtml(result.stage ?? '')}: ${escapeHtml(result.error ?? '')}</p>`) +
    benchmarkTable(result.results ?? []) +
    '</body></html>';
}

async function explainCounterexample(): Promise<void> {
  const editor = argusEditor();
  if (!editor) return;
  const position = editor.selection.active;
  const diagnostic = vscode.languages
    .getDiagnostics(editor.document.uri)
    .find((d) => d.range.start.line === position.line && /^[EW]09/.test(String(d.code)));
  if (!diagnostic) {
    void vscode.window.showWarningMessage('Argus: no checker diagnostic (E09xx) on this line.');
    return;
  }
  const result = await execute<{ history?: Parameters<typeof historyLines>[0]; markdown?: string }>('argus.explain', {
    uri: editor.document.uri.toString(),
    line: diagnostic.range.start.line,
    character: diagnostic.range.start.character,
    code: String(diagnostic.code),
  });
  if (!result) return;
  const steps = historyLines(result.history ?? []);
  const picked = await vscode.window.showQuickPick(
    steps.map((s, i) => ({ label: `${i + 1}. ${s.label}`, description: `line ${s.line + 1}`, step: s })),
    { title: `Counterexample of ${diagnostic.code}: ${diagnostic.message}` },
  );
  if (picked) {
    const at = new vscode.Position(picked.step.line, picked.step.character);
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  }
}

async function layoutCalculator(): Promise<void> {
  const expr = await vscode.window.showInputBox({
    title: 'Argus layout calculator',
    prompt: 'A layout expression, e.g. tv(mma_m16n8k16_bf16, C) or composition((6,2):(8,2), (4,3):(3,1))',
  });
  if (!expr) return;
  await showLayout(expr);
}

// A layout and its picture beside the editor (the calculator, and the links of hovers).
async function showLayout(expr: unknown): Promise<void> {
  if (typeof expr !== 'string' || expr === '') return;
  const result = await execute<{ result?: string; error?: { message: string }; svg?: string; svgError?: string }>(
    'argus.layout',
    { expr, svg: true },
  );
  if (!result) return;
  const panel = vscode.window.createWebviewPanel('argusLayout', `Layout: ${expr}`, vscode.ViewColumn.Beside, {});
  const picture = result.svg
    ? `<img alt="layout" src="data:image/svg+xml;base64,${Buffer.from(result.svg, 'utf8').toString('base64')}">`
    : `<p>${escapeHtml(result.svgError ?? '')}</p>`;
  panel.webview.html =
    `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:;"></head><body>` +
    `<h3>${escapeHtml(expr)}</h3><p><code>${escapeHtml(result.error ? result.error.message : result.result ?? '')}</code></p>${picture}</body></html>`;
}

// The status bar: the verification summary of the kernel under the cursor
// (argus.verification, once per document version), else the server's state.
let statusTimer: ReturnType<typeof setTimeout> | undefined;
const verified = new Map<string, { version: number; kernels: KernelVerification[] }>();

function scheduleStatus(): void {
  if (statusTimer) clearTimeout(statusTimer);
  statusTimer = setTimeout(() => void updateStatus(), 250);
}

async function updateStatus(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const shown = (s: { text: string; tooltip: string }) => {
    status.text = s.text;
    status.tooltip = s.tooltip;
  };
  if (!editor || editor.document.languageId !== 'argus' || !client || !client.isRunning()) {
    shown(serverStatus);
    return;
  }
  const uri = editor.document.uri.toString();
  const version = editor.document.version;
  let entry = verified.get(uri);
  if (!entry || entry.version !== version) {
    try {
      const result = (await client.sendRequest('workspace/executeCommand', {
        command: 'argus.verification',
        arguments: [{ uri }],
      })) as { version?: number; kernels?: KernelVerification[] };
      entry = { version: result.version ?? version, kernels: result.kernels ?? [] };
      verified.set(uri, entry);
    } catch {
      shown(serverStatus);
      return;
    }
  }
  if (vscode.window.activeTextEditor !== editor) return; // moved on meanwhile
  const kernel = kernelAt(entry.kernels, editor.selection.active.line);
  shown(kernel ? kernelStatus(kernel) : serverStatus);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('Argus');
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  status.text = 'Argus';
  status.command = 'argus.restartServer';
  status.show();
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand('argus.compileKernel', compileKernel),
    vscode.commands.registerCommand('argus.benchmarkKernel', benchmarkKernel),
    vscode.commands.registerCommand('argus.showGeneratedCode', showGeneratedCode),
    vscode.commands.registerCommand('argus.explainCounterexample', explainCounterexample),
    vscode.commands.registerCommand('argus.layoutCalculator', layoutCalculator),
    vscode.commands.registerCommand(showLayoutCommand, showLayout),
    vscode.window.onDidChangeTextEditorSelection(scheduleStatus),
    vscode.window.onDidChangeActiveTextEditor(scheduleStatus),
    vscode.languages.onDidChangeDiagnostics(scheduleStatus),
    vscode.workspace.onDidCloseTextDocument((d) => verified.delete(d.uri.toString())),
    vscode.commands.registerCommand('argus.restartServer', async () => {
      await client?.stop();
      await start(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      // The command line (binary, arguments, allowed runner) needs a new server;
      // the rest the server pulls (workspace/configuration).
      if (e.affectsConfiguration('argus.server') || e.affectsConfiguration('argus.runner')) {
        await client?.stop();
        await start(context);
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      await client?.stop();
      await start(context);
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
