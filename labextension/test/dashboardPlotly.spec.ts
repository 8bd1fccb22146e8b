import type { Requester } from '../src/api';
import { usesHpnb } from '../src/dashboardPlotly';

type Module = typeof import('../src/dashboardPlotly');

/** A fresh copy of the module (its once-per-page guard unset). */
function freshModule(): Module {
  let loaded: Module | undefined;
  jest.isolateModules(() => {
    loaded = jest.requireActual<Module>('../src/dashboardPlotly');
  });
  return loaded as Module;
}

function answering(status: number, version: string | null): { request: Requester; asked: string[] } {
  const asked: string[] = [];
  const request: Requester = async path => {
    asked.push(path);
    const headers = version ? { 'X-Plotly-Version': version } : undefined;
    return new Response('export default {};', { status, headers });
  };
  return { request, asked };
}

const REGISTRY = Symbol.for('hpnb.plotly-js');
afterEach(() => {
  delete (globalThis as unknown as Record<symbol, unknown>)[REGISTRY];
});

describe('which cells use hpnb', () => {
  it.each(['%load_ext hpnb', '%%hpsearch train --name a\nmetric: loss', '%hpsearch show big', 'import hpnb', 'from hpnb import show', 'from hpnb.api import Search', 'x = 1\n  %load_ext hpnb'])(
    'sees %j',
    source => expect(usesHpnb(source)).toBe(true)
  );
  it.each(['import hpnbx', '# %load_ext hpnb', 'print("%hpsearch")', '%load_ext hpnbfoo', 'import numpy as np'])('not %j', source =>
    expect(usesHpnb(source)).toBe(false)
  );
});

describe('plotly.js for the dashboards, loaded ahead', () => {
  it('asks the server once per page', async () => {
    const { preloadDashboardPlotly } = freshModule();
    const { request, asked } = answering(404, null);
    await preloadDashboardPlotly(request);
    await preloadDashboardPlotly(request);
    expect(asked).toEqual(['hpnb/api/plotly.js']);
  });
  it('leaves the registry alone when the server has no plotly: the kernel sends its own', async () => {
    const { preloadDashboardPlotly } = freshModule();
    await preloadDashboardPlotly(answering(404, null).request);
    expect((globalThis as unknown as Record<symbol, unknown>)[REGISTRY]).toBeUndefined();
  });
  it('leaves an entry alone that a kernel widget is loading already', async () => {
    const { preloadDashboardPlotly, registryEntry } = freshModule();
    const entry = registryEntry('6.1.0');
    entry.loading = true;
    const settled = jest.fn();
    entry.promise.then(settled, settled);
    await preloadDashboardPlotly(answering(200, '6.1.0').request);
    await Promise.resolve();
    expect(registryEntry('6.1.0')).toBe(entry);
    expect(settled).not.toHaveBeenCalled(); // the widget settles it, not the preload
  });
  it('shares the entries with the dashboards (one registry per page, as plotly_registry.js makes it)', () => {
    const { registryEntry } = freshModule();
    const entry = registryEntry('6.1.0');
    const page = (globalThis as unknown as Record<symbol, Map<string, unknown>>)[REGISTRY];
    expect(page.get('6.1.0')).toBe(entry);
    expect(freshModule().registryEntry('6.1.0')).toBe(entry);
    expect(entry.loading).toBe(false);
  });
});
