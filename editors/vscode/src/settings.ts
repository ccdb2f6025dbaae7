// What the extension decides from settings, without the VS Code API (so it is
// unit-tested in plain Node: test/settings.test.ts): the server's command line,
// the settings the server gets, and the benchmark table.

// A setting as `WorkspaceConfiguration.inspect` gives it.
export interface Inspected<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export interface ServerCommand {
  command: string;
  args: string[];
}

// The value a setting has for the extension: in a trusted workspace the most
// specific one; in an untrusted one the user's own (VS Code also withholds the
// restricted settings there; this keeps the rule when it does not).
export function effective<T>(setting: Inspected<T>, trusted: boolean): T | undefined {
  if (trusted) {
    return setting.workspaceFolderValue ?? setting.workspaceValue ?? setting.globalValue ?? setting.defaultValue;
  }
  return setting.globalValue ?? setting.defaultValue;
}

// A runner template as an fnmatch glob that matches only itself: the server's
// --allow-runner takes globs, and a template may hold `*`, `?` or `[`.
export function literalGlob(template: string): string {
  return template.replace(/[\\*?[\]]/g, (c) => '\\' + c);
}

// `argus lsp` and its arguments. The binary and the extra arguments follow
// `effective`; the runner template is allowed (--allow-runner) only when it
// comes from the user's settings: a workspace's template reaches the server
// as a setting and is refused there, so a cloned repository cannot choose the
// command a benchmark runs.
export function serverCommand(
  path: Inspected<string>,
  args: Inspected<string[]>,
  runner: Inspected<string>,
  trusted: boolean,
): ServerCommand {
  const command = (effective(path, trusted) ?? '').trim() || 'argus';
  const out = ['lsp', ...(effective(args, trusted) ?? [])];
  const userRunner = (runner.globalValue ?? '').trim();
  if (userRunner !== '') {
    out.push('--allow-runner=' + literalGlob(userRunner));
  }
  return { command, args: out };
}

export interface Values {
  target?: string;
  runner?: string;
  benchmarkTimeoutSeconds?: number;
  checker: {
    timeLimitMs?: number;
    queryTimeoutMs?: number;
    unrollBound?: number;
    maxBlocks?: number;
    lints?: boolean;
    symbolic?: boolean;
  };
}

// The server's settings (initializationOptions and workspace/configuration's
// `argus` section): {checker: {...}, target, runner?, benchmarkTimeoutSeconds}.
// An empty runner is left out (the server's built-in one).
export function serverSettings(values: Values): Record<string, unknown> {
  const checker: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values.checker)) {
    if (value !== undefined) {
      checker[key] = value;
    }
  }
  const out: Record<string, unknown> = { checker };
  if (values.target) {
    out.target = values.target;
  }
  if (values.runner && values.runner.trim() !== '') {
    out.runner = values.runner.trim();
  }
  if (values.benchmarkTimeoutSeconds !== undefined) {
    out.benchmarkTimeoutSeconds = values.benchmarkTimeoutSeconds;
  }
  return out;
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c]);
}

// One row per argus-runner result object (docs/artifacts.md): an HTML table
// for the benchmark webview, every value escaped.
export function benchmarkTable(results: Array<Record<string, unknown>>): string {
  const columns = ['kernel', 'sizes', 'median_ms', 'tflops', 'reference_ms', 'correct'];
  const cell = (value: unknown): string => {
    if (value === undefined || value === null) {
      return '';
    }
    if (typeof value === 'object') {
      return escapeHtml(
        Object.entries(value as Record<string, unknown>)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(', '),
      );
    }
    return escapeHtml(String(value));
  };
  const head = columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const rows = results.map((r) => '<tr>' + columns.map((c) => `<td>${cell(r[c])}</td>`).join('') + '</tr>');
  return `<table><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

// The steps of an argus.explain history as lines: "line:col action details".
export interface Step {
  action?: string;
  program_point?: { line?: number; character?: number };
  tensor?: string;
  tag?: unknown;
  space?: string;
}
export function historyLines(history: Step[]): Array<{ line: number; character: number; label: string }> {
  return history.map((s) => {
    const details = [s.space, s.tensor, s.tag === undefined ? undefined : JSON.stringify(s.tag)]
      .filter((x) => x !== undefined && x !== null && x !== '')
      .join(' ');
    return {
      line: s.program_point?.line ?? 0,
      character: s.program_point?.character ?? 0,
      label: (s.action ?? 'step') + (details ? ' ' + details : ''),
    };
  });
}

// argus.verification's answer (server/README.md): each kernel's range and summary.
export interface KernelVerification {
  kernel: string;
  range: { start: { line: number }; end: { line: number } };
  line?: string | null;
  summary?: {
    unproven?: number;
    properties?: Record<string, { verdict: string; detail?: string }>;
  } | null;
}

// The kernel whose definition holds the (zero-based) line, if any.
export function kernelAt(kernels: KernelVerification[], line: number): KernelVerification | undefined {
  return kernels.find((k) => k.range.start.line <= line && line <= k.range.end.line);
}

// The status bar for a kernel: what its check proved, at a glance (the
// tooltip is the summary line, `argus check --verbose`). Errors first, then
// what was not covered (W0901), then how much holds for all sizes.
export function kernelStatus(k: KernelVerification): { text: string; tooltip: string } {
  const tooltip = k.line ?? `${k.kernel}: not checked yet`;
  const properties = Object.entries(k.summary?.properties ?? {});
  if (!k.summary || properties.length === 0) {
    return { text: `$(sync~spin) ${k.kernel}`, tooltip };
  }
  const violated = properties.filter(([, p]) => p.verdict === 'violated').map(([name]) => name);
  if (violated.length > 0) {
    return { text: `$(error) ${k.kernel}: ${violated.join(', ')} violated`, tooltip };
  }
  const notChecked = properties.filter(([, p]) => p.verdict === 'not-checked').map(([name]) => name);
  if (notChecked.length > 0) {
    return { text: `$(warning) ${k.kernel}: ${notChecked.join(', ')} not checked`, tooltip };
  }
  const unproven = k.summary.unproven ?? 0;
  if (unproven > 0) {
    return { text: `$(warning) ${k.kernel}: ${unproven} unproven (W0901)`, tooltip };
  }
  const present = properties.filter(([, p]) => p.verdict !== 'absent');
  const allSizes = present.filter(([, p]) => p.verdict === 'all-sizes').length;
  return { text: `$(check) ${k.kernel}: ${allSizes}/${present.length} proved for all sizes`, tooltip };
}
