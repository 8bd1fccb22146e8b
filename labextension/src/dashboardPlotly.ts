/**
 * plotly.js for the notebook dashboards, loaded once a notebook that uses
 * hpnb is open (when the page is next idle) rather than when its first
 * dashboard is due.
 *
 * The dashboards (hpnb/jupyter/dashboard/plot.js) wait for their plotly
 * version's entry in a page-wide registry, which the kernel's PlotlyCode
 * widget fills with the plotly.js it sends (plotly_registry.js and
 * plotly_code.js there). Evaluating plotly.js takes the page about a second
 * without a GPU; in a notebook run top to bottom that second fell on the
 * first dashboard. Here the page fetches the same module from the server
 * extension (`hpnb/api/plotly.js`, named by its `X-Plotly-Version` header)
 * and fills the entry first; a kernel of that version then finds it filled
 * and sends nothing to evaluate, one of another version loads its own.
 */

import type { Extension } from '@codemirror/state';
import { ViewPlugin, type EditorView, type ViewUpdate } from '@codemirror/view';

import type { Requester } from './api';
import { whenIdle } from './plotting';

/** The registry's key: the same symbol as plotly_registry.js's, shared by every module of the page. */
const REGISTRY = Symbol.for('hpnb.plotly-js');

/** What the dashboards' plots wait for: plotly.js and their template. */
interface ILoaded {
  Plotly: unknown;
  template: unknown;
}

/** One plotly version's entry, as plotly_registry.js makes it. */
export interface IRegistryEntry {
  promise: Promise<ILoaded>;
  resolve(loaded: ILoaded): void;
  reject(error: unknown): void;
  /** Someone (this page's preload, or a kernel's PlotlyCode widget) is evaluating plotly.js for it. */
  loading: boolean;
}

type Registry = Map<string, IRegistryEntry>;

function registry(): Registry {
  const page = globalThis as unknown as Record<symbol, Registry | undefined>;
  return (page[REGISTRY] ??= new Map());
}

/** The entry of `version`, made as plotly_registry.js makes it when there is none yet. */
export function registryEntry(version: string): IRegistryEntry {
  const entries = registry();
  let found = entries.get(version);
  if (!found) {
    let resolve!: (loaded: ILoaded) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<ILoaded>((ok, fail) => {
      resolve = ok;
      reject = fail;
    });
    found = { promise, resolve, reject, loading: false };
    entries.set(version, found);
  }
  return found;
}

/** Imports a module from its source text (what the kernel's widget does with the same bytes). */
async function importSource(source: Blob): Promise<{ default: unknown; template: unknown }> {
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  try {
    return await import(/* webpackIgnore: true */ url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

let started = false;

/**
 * Fetches the dashboards' plotly.js and fills its version's entry, once per
 * page; nothing when a kernel's widget already fills it, or the server has no
 * plotly (the kernel sends its own then). Resolves when done.
 */
export async function preloadDashboardPlotly(request: Requester): Promise<void> {
  if (started) {
    return;
  }
  started = true;
  let response: Response;
  try {
    response = await request('hpnb/api/plotly.js');
  } catch {
    return; // the kernel sends plotly.js as before
  }
  const version = response.headers.get('X-Plotly-Version');
  if (!response.ok || !version) {
    return;
  }
  const source = await response.blob();
  const entry = registryEntry(version);
  if (entry.loading) {
    return; // a kernel's widget came first
  }
  entry.loading = true;
  try {
    const module = await importSource(source);
    entry.resolve({ Plotly: module.default, template: module.template });
  } catch (error) {
    registry().delete(version); // as the kernel's widget does: the next one tries again
    entry.reject(error);
  }
}

/** Whether a cell's source uses hpnb: loads it, imports it, or is an `%hpsearch` magic. */
export function usesHpnb(source: string): boolean {
  return /^\s*(%load_ext\s+hpnb\b|%%?hpsearch\b|import\s+hpnb\b|from\s+hpnb[\s.])/m.test(source);
}

/**
 * The editor extension that starts {@link preloadDashboardPlotly} when the
 * page is next idle, the first time an editor of the page is created with, or
 * edited into, a cell that uses hpnb.
 */
export function preloadWhenHpnbIsUsed(request: Requester): Extension {
  let seen = false; // no more scans of the cells once seen
  const check = (view: EditorView) => {
    if (!seen && usesHpnb(view.state.doc.toString())) {
      seen = true;
      whenIdle(() => void preloadDashboardPlotly(request));
    }
  };
  return ViewPlugin.define(view => {
    check(view);
    return { update: (update: ViewUpdate) => update.docChanged && check(update.view) };
  });
}
