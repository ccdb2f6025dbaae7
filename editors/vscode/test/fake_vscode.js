// A stand-in for the `vscode` module, enough for the extension and
// vscode-languageclient to start `argus lsp`, open a document, take its
// diagnostics and run commands (test/activation.test.js). VS Code itself
// cannot run on CI's machines. What the extension uses is modelled; anything
// else vscode-languageclient touches (provider registrations, converters'
// enums) is a permissive stand-in that accepts every call.
'use strict';

// Callable, constructible, every property another stand-in.
function standIn(name) {
  return new Proxy(function () {}, {
    get(_target, prop) {
      if (prop === Symbol.toPrimitive) return () => name;
      if (prop === 'then') return undefined; // not a promise
      if (prop === 'dispose') return () => {};
      return standIn(`${name}.${String(prop)}`);
    },
    apply() {
      return standIn(`${name}()`);
    },
    construct() {
      return standIn(`new ${name}`);
    },
  });
}

class Disposable {
  constructor(fn) {
    this.fn = fn;
  }
  static from(...items) {
    return new Disposable(() => items.forEach((d) => d && d.dispose && d.dispose()));
  }
  dispose() {
    if (this.fn) this.fn();
    this.fn = undefined;
  }
}

class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (listener, thisArgs, disposables) => {
      const entry = thisArgs ? listener.bind(thisArgs) : listener;
      this.listeners.push(entry);
      const d = new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== entry)));
      if (Array.isArray(disposables)) disposables.push(d);
      return d;
    };
  }
  fire(value) {
    for (const l of [...this.listeners]) l(value);
  }
  dispose() {
    this.listeners = [];
  }
}

class Uri {
  constructor(scheme, path) {
    this.scheme = scheme;
    this.path = path;
    this.fsPath = path;
    this.authority = '';
    this.query = '';
    this.fragment = '';
  }
  static parse(text) {
    const m = /^([a-z][a-z0-9+.-]*):(?:\/\/)?(.*)$/i.exec(text);
    return m ? new Uri(m[1], decodeURIComponent(m[2])) : new Uri('file', text);
  }
  static file(path) {
    return new Uri('file', path);
  }
  with() {
    return this;
  }
  toString() {
    return this.scheme === 'file' ? 'file://' + encodeURI(this.path) : `${this.scheme}:${this.path}`;
  }
  toJSON() {
    return this.toString();
  }
}

class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') {
      this.start = new Position(a, b);
      this.end = new Position(c, d);
    } else {
      this.start = a;
      this.end = b;
    }
  }
}
class Selection extends Range {
  constructor(anchor, active) {
    super(anchor, active);
    this.anchor = anchor;
    this.active = active;
  }
}
class Diagnostic {
  constructor(range, message, severity) {
    this.range = range;
    this.message = message;
    this.severity = severity;
  }
}
class MarkdownString {
  constructor(value = '', supportThemeIcons = false) {
    this.value = value;
    this.supportThemeIcons = supportThemeIcons;
    this.isTrusted = false;
  }
  appendMarkdown(v) {
    this.value += v;
    return this;
  }
  appendText(v) {
    this.value += v;
    return this;
  }
  appendCodeblock(v) {
    this.value += v;
    return this;
  }
}
class Hover {
  constructor(contents, range) {
    this.contents = Array.isArray(contents) ? contents : [contents];
    this.range = range;
  }
}
class CancellationError extends Error {}
class CancellationTokenSource {
  constructor() {
    const changed = new EventEmitter();
    this.token = { isCancellationRequested: false, onCancellationRequested: changed.event };
    this.changed = changed;
  }
  cancel() {
    this.token.isCancellationRequested = true;
    this.changed.fire(undefined);
  }
  dispose() {}
}

// What a test sets and inspects.
const state = {
  settings: {}, // 'argus.server.path' -> value (user settings)
  statusItems: [],
  outputs: [],
  messages: [],
  diagnostics: new Map(), // uri string -> Diagnostic[]
  commands: new Map(),
  webviews: [],
};

const events = {
  openDocument: new EventEmitter(),
  closeDocument: new EventEmitter(),
  changeDocument: new EventEmitter(),
  changeConfiguration: new EventEmitter(),
  selection: new EventEmitter(),
  activeEditor: new EventEmitter(),
  diagnostics: new EventEmitter(),
};

function configuration(section) {
  const key = (k) => (section ? `${section}.${k}` : k);
  return {
    get: (k, fallback) => (key(k) in state.settings ? state.settings[key(k)] : fallback),
    inspect: (k) => (key(k) in state.settings ? { globalValue: state.settings[key(k)] } : {}),
    has: (k) => key(k) in state.settings,
    update: async () => {},
  };
}

const workspace = {
  textDocuments: [],
  workspaceFolders: undefined,
  isTrusted: true,
  getConfiguration: configuration,
  onDidOpenTextDocument: events.openDocument.event,
  onDidCloseTextDocument: events.closeDocument.event,
  onDidChangeTextDocument: events.changeDocument.event,
  onDidChangeConfiguration: events.changeConfiguration.event,
  onDidSaveTextDocument: new EventEmitter().event,
  onWillSaveTextDocument: new EventEmitter().event,
  onDidChangeWorkspaceFolders: new EventEmitter().event,
  onDidGrantWorkspaceTrust: new EventEmitter().event,
  createFileSystemWatcher: () => standIn('watcher'),
  applyEdit: async () => true,
  openTextDocument: async () => standIn('document'),
};

const window = {
  activeTextEditor: undefined,
  visibleTextEditors: [],
  tabGroups: { all: [], onDidChangeTabs: new EventEmitter().event, onDidChangeTabGroups: new EventEmitter().event },
  createOutputChannel(name) {
    const channel = { name, lines: [], append: (t) => channel.lines.push(t), appendLine: (t) => channel.lines.push(t) };
    channel.show = () => {};
    channel.clear = () => {};
    channel.replace = () => {};
    channel.hide = () => {};
    channel.dispose = () => {};
    state.outputs.push(channel);
    return channel;
  },
  createStatusBarItem() {
    const item = { text: '', tooltip: '', command: undefined, show() {}, hide() {}, dispose() {} };
    state.statusItems.push(item);
    return item;
  },
  showErrorMessage: async (m) => void state.messages.push(['error', m]),
  showWarningMessage: async (m) => void state.messages.push(['warning', m]),
  showInformationMessage: async (m) => void state.messages.push(['info', m]),
  withProgress: async (_options, task) => task({ report() {} }, new CancellationTokenSource().token),
  onDidChangeActiveTextEditor: events.activeEditor.event,
  onDidChangeTextEditorSelection: events.selection.event,
  onDidChangeVisibleTextEditors: new EventEmitter().event,
  createWebviewPanel(viewType, title) {
    const panel = { viewType, title, webview: { html: '' }, dispose() {} };
    state.webviews.push(panel);
    return panel;
  },
  showTextDocument: async () => standIn('editor'),
  showQuickPick: async () => undefined,
  showInputBox: async () => undefined,
};

const languages = {
  match(selector, document) {
    const list = Array.isArray(selector) ? selector : [selector];
    return list.some((s) => (typeof s === 'string' ? s : s.language) === document.languageId) ? 10 : 0;
  },
  createDiagnosticCollection(name) {
    return {
      name,
      set(uri, diagnostics) {
        state.diagnostics.set(uri.toString(), diagnostics || []);
        events.diagnostics.fire({ uris: [uri] });
      },
      delete(uri) {
        state.diagnostics.delete(uri.toString());
      },
      clear() {
        state.diagnostics.clear();
      },
      get: (uri) => state.diagnostics.get(uri.toString()),
      forEach() {},
      has: (uri) => state.diagnostics.has(uri.toString()),
      dispose() {},
    };
  },
  registerHoverProvider(selector, provider) {
    state.hoverProvider = provider;
    return new Disposable();
  },
  getDiagnostics: (uri) => state.diagnostics.get(uri.toString()) || [],
  onDidChangeDiagnostics: events.diagnostics.event,
};

const commands = {
  registerCommand(id, fn) {
    state.commands.set(id, fn);
    return new Disposable(() => state.commands.delete(id));
  },
  executeCommand: async (id, ...args) => (state.commands.has(id) ? state.commands.get(id)(...args) : undefined),
};

// A text document of the argus language (full text, versions as edits come).
function textDocument(path, text, version = 1) {
  const lines = text.split('\n');
  return {
    uri: Uri.file(path),
    fileName: path,
    languageId: 'argus',
    version,
    isClosed: false,
    isDirty: false,
    isUntitled: false,
    eol: 1,
    lineCount: lines.length,
    getText: () => text,
    lineAt: (n) => ({ text: lines[typeof n === 'number' ? n : n.line] }),
  };
}

// A namespace: what is modelled, a stand-in for the rest.
function namespace(name, members) {
  return new Proxy(members, {
    get(target, prop) {
      return prop in target ? target[prop] : standIn(`${name}.${String(prop)}`);
    },
  });
}

const known = {
  version: '1.82.0',
  Disposable,
  EventEmitter,
  Uri,
  Position,
  Range,
  Selection,
  Diagnostic,
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  MarkdownString,
  Hover,
  CancellationError,
  CancellationTokenSource,
  StatusBarAlignment: { Left: 1, Right: 2 },
  ViewColumn: { Active: -1, Beside: -2, One: 1 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  TextEditorRevealType: { Default: 0, InCenter: 1 },
  workspace: namespace('workspace', workspace),
  window: namespace('window', window),
  languages: namespace('languages', languages),
  commands: namespace('commands', commands),
  env: { language: 'en', appName: 'fake-vscode', machineId: 'test', openExternal: async () => true },
  extensions: { all: [], getExtension: () => undefined },
  __test: { state, events, textDocument },
};

module.exports = new Proxy(known, {
  get(target, prop) {
    return prop in target ? target[prop] : standIn(String(prop));
  },
});
