/// <reference types="node" />
import { readFileSync } from 'fs';
import { join } from 'path';

import {
  experimentAction,
  formatAge,
  formatBytes,
  formatClock,
  formatDuration,
  formatParam,
  formatParams,
  formatProgress,
  formatScore,
  isActive,
  isResumable,
  logSummary,
  progressFraction,
  resumeCommands,
  stateClass
} from '../src/format';

describe('formatScore', () => {
  it('keeps four significant digits', () => {
    expect(formatScore(0.123456)).toBe('0.1235');
    expect(formatScore(12.3456)).toBe('12.35');
    expect(formatScore(0)).toBe('0');
  });
  it('writes numbers as the notebook does (Python\'s 4-digit g format)', () => {
    expect(formatScore(0.00001234)).toBe('1.234e-05');
    expect(formatScore(123456789)).toBe('1.235e+08');
    expect(formatScore(0.0001963)).toBe('0.0001963');
    expect(formatScore(0.00001)).toBe('1e-05');
    expect(formatScore(9999.7)).toBe('1e+04');
    expect(formatScore(1234)).toBe('1234');
  });
  it('shows a dash for missing or non-finite scores', () => {
    expect(formatScore(null)).toBe('—');
    expect(formatScore(undefined)).toBe('—');
    expect(formatScore(NaN)).toBe('—');
    expect(formatScore(Infinity)).toBe('—');
  });
});

describe('formatParams', () => {
  it('lists parameters in the order the server sends them (the spec\'s)', () => {
    expect(formatParams({ optimizer: 'adam', lr: 0.001, layers: 2 })).toBe('optimizer=adam, lr=0.001, layers=2');
  });
  it('writes non-scalar values as JSON', () => {
    expect(formatParam([1, 2])).toBe('[1,2]');
    expect(formatParam(true)).toBe('true');
  });
  it('is empty without parameters', () => {
    expect(formatParams(null)).toBe('');
  });
});

describe('formatAge', () => {
  it('picks the unit from the elapsed time', () => {
    expect(formatAge(1000, 1030)).toBe('30 s ago');
    expect(formatAge(1000, 1000 + 5 * 60)).toBe('5 min ago');
    expect(formatAge(1000, 1000 + 3 * 3600)).toBe('3 h ago');
    expect(formatAge(1000, 1000 + 3 * 86400)).toBe('3 d ago');
  });
  it('never shows a negative age (clock skew)', () => {
    expect(formatAge(2000, 1990)).toBe('0 s ago');
  });
});

describe('progress', () => {
  it('shows done of budget with running and failed counts', () => {
    expect(formatProgress({ done: 12, budget: 40, running: 4, failed: 1 })).toBe('12 / 40 · 4 running · 1 failed');
    expect(formatProgress({ done: 40, budget: 40, running: 0, failed: 0 })).toBe('40 / 40');
    expect(formatProgress({ done: 3, budget: null, running: 0, failed: 0 })).toBe('3 / ?');
  });
  it('counts interrupted trials where running ones are counted', () => {
    expect(formatProgress({ done: 2, budget: 10, running: 0, interrupted: 3, failed: 1 })).toBe(
      '2 / 10 · 3 interrupted · 1 failed'
    );
    expect(formatProgress({ done: 2, budget: 10, running: 1, interrupted: 0, failed: 0 })).toBe('2 / 10 · 1 running');
  });
  it('names every state some trial is in, paused and pending included, in the notebook order', () => {
    expect(formatProgress({ done: 13, budget: 17, running: 2, pending: 1, paused: 1, failed: 0, stopped: 1 })).toBe(
      '13 / 17 · 2 running · 1 pending · 1 paused · 1 stopped'
    );
  });
  it('clamps the fraction to [0, 1]', () => {
    expect(progressFraction(5, 10)).toBe(0.5);
    expect(progressFraction(15, 10)).toBe(1);
    expect(progressFraction(3, 0)).toBe(0);
    expect(progressFraction(3, null)).toBe(0);
  });
});

describe('states', () => {
  it('maps a state to its badge class and never injects other text', () => {
    expect(stateClass('RUNNING')).toBe('hpnb-state-running');
    expect(stateClass('INTERRUPTED')).toBe('hpnb-state-interrupted');
    expect(stateClass('x" onclick="y')).toBe('hpnb-state-unknown');
  });
  it('gives the interrupted badge a colour of its own in the style sheet', () => {
    const css = readFileSync(join(__dirname, '..', 'style', 'base.css'), 'utf8');
    const rule = (name: string) => new RegExp(`\\.${name}\\s*\\{([^}]*)\\}`).exec(css)?.[1];
    const interrupted = rule('hpnb-state-interrupted');
    expect(interrupted).toMatch(/background:/);
    for (const other of ['stopped', 'failed', 'completed']) {
      expect(css).not.toMatch(new RegExp(`hpnb-state-${other},\\s*\\.hpnb-state-interrupted`));
      expect(rule(`hpnb-state-${other}`)).not.toBe(interrupted);
    }
  });
});

/** The experiment JSON of the REST route, as the server sends it (trimmed to what matters here). */
function body(fields: Record<string, unknown>): string {
  return JSON.stringify({ name: 'mlp-lr', done: 2, budget: 10, running: 0, failed: 0, ...fields });
}

describe('Stop or Resume…', () => {
  it('offers Stop exactly while the server says a driver works on the search', () => {
    expect(experimentAction(JSON.parse(body({ state: 'RUNNING', active: true, resumable: false })))).toBe('stop');
    expect(experimentAction(JSON.parse(body({ state: 'CREATED', active: true, resumable: false })))).toBe('stop');
    // the server's fields win over the state
    expect(experimentAction(JSON.parse(body({ state: 'RUNNING', active: false, resumable: true })))).toBe(null);
  });
  it('offers Resume… instead of Stop for an interrupted search', () => {
    const interrupted = JSON.parse(body({ state: 'INTERRUPTED', active: false, resumable: true, interrupted: 3 }));
    expect(experimentAction(interrupted)).toBe('resume');
    expect(isActive(interrupted)).toBe(false);
    expect(isResumable(interrupted)).toBe(true);
    expect(experimentAction(JSON.parse(body({ state: 'INTERRUPTED', active: false, resumable: false })))).toBe(null);
  });
  it('offers nothing for a search that ended', () => {
    for (const state of ['COMPLETED', 'STOPPED', 'FAILED']) {
      expect(experimentAction(JSON.parse(body({ state, active: false, resumable: true })))).toBe(null);
    }
  });
});

describe('resumeCommands', () => {
  it('names the search in the notebook and terminal commands', () => {
    expect(resumeCommands('mlp-lr.v2_b')).toEqual({
      notebook: '%hpsearch resume mlp-lr.v2_b',
      terminal: 'hpnb resume mlp-lr.v2_b --objective MODULE:FUNCTION'
    });
  });
});

describe('times as people write them', () => {
  const now = new Date(2026, 11, 1, 10, 30, 0).getTime() / 1000;
  it('shows a clock time today, the day before, the year in another year', () => {
    expect(formatClock(new Date(2026, 11, 1, 4, 49, 34).getTime() / 1000, now)).toBe('04:49');
    expect(formatClock(new Date(2026, 10, 30, 14, 2).getTime() / 1000, now)).toBe('Nov 30 14:02');
    expect(formatClock(new Date(2025, 10, 30, 14, 2).getTime() / 1000, now)).toBe('Nov 30 2025 14:02');
    expect(formatClock(null, now)).toBe('—');
  });
  it('says how long ago', () => {
    expect(formatAge(now - 200, now)).toBe('3 min ago');
  });
  it('gives durations in their two largest units', () => {
    expect([0.0042, 0.42, 1.5, 12.3, 80, 3600, 7500, 273600].map(formatDuration)).toEqual([
      '4 ms',
      '420 ms',
      '1.5 s',
      '12 s',
      '1 min 20 s',
      '1 h',
      '2 h 5 min',
      '3 d 4 h'
    ]);
    expect(formatDuration(null)).toBe('—');
  });
  it('gives sizes in binary units and a trial log summary', () => {
    expect([512, 2048, 300 * 2 ** 20, 1.5 * 2 ** 30].map(formatBytes)).toEqual(['512 B', '2.0 KiB', '300 MiB', '1.5 GiB']);
    expect(logSummary({ trial_id: 3, state: 'FAILED', worker: 'tcp://127.0.0.1:1', peak_memory_bytes: null })).toBe(
      'trial 3 · failed · on tcp://127.0.0.1:1 · peak memory —'
    );
  });
});
