import {
  formatAge,
  formatParam,
  formatParams,
  formatProgress,
  formatScore,
  isActive,
  progressFraction,
  stateClass
} from '../src/format';

describe('formatScore', () => {
  it('keeps four significant digits', () => {
    expect(formatScore(0.123456)).toBe('0.1235');
    expect(formatScore(12.3456)).toBe('12.35');
    expect(formatScore(0)).toBe('0');
  });
  it('uses exponents for very small and very large values', () => {
    expect(formatScore(0.00001234)).toBe('1.234e-5');
    expect(formatScore(123456789)).toBe('1.235e+8');
  });
  it('shows a dash for missing or non-finite scores', () => {
    expect(formatScore(null)).toBe('—');
    expect(formatScore(undefined)).toBe('—');
    expect(formatScore(NaN)).toBe('—');
    expect(formatScore(Infinity)).toBe('—');
  });
});

describe('formatParams', () => {
  it('lists parameters sorted by name', () => {
    expect(formatParams({ optimizer: 'adam', lr: 0.001, layers: 2 })).toBe('layers=2, lr=0.001, optimizer=adam');
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
    expect(stateClass('x" onclick="y')).toBe('hpnb-state-unknown');
  });
  it('knows which experiments can be stopped', () => {
    expect(isActive('RUNNING')).toBe(true);
    expect(isActive('CREATED')).toBe(true);
    expect(isActive('COMPLETED')).toBe(false);
    expect(isActive('INTERRUPTED')).toBe(false);
  });
});
