import { formatProgress, formatStrategy } from '../src/format';

/** The experiment view's header line: `${formatStrategy} · ${formatProgress} · outcome`. */
describe('the experiment header says what auto chose and why', () => {
  const base = { strategy: 'auto', done: 12, budget: 40, running: 2, failed: 0 };

  it('names auto, its choice and the reason, from the summary the route sends', () => {
    const experiment = { ...base, strategy_choice: 'gp: 40 trials, 6 continuous parameters' };
    expect(`${formatStrategy(experiment)} · ${formatProgress(experiment)}`).toBe(
      'auto → gp: 40 trials, 6 continuous parameters · 12 / 40 · 2 running'
    );
  });

  it('shows the switch to tpe the summary records', () => {
    const choice = 'gp: 300 trials, 2 continuous parameters; tpe from trial 200; now tpe';
    expect(formatStrategy({ strategy: 'auto', strategy_choice: choice })).toBe(`auto → ${choice}`);
  });

  it('names another strategy alone, and an older server without the field', () => {
    expect(formatStrategy({ strategy: 'tpe', strategy_choice: null })).toBe('tpe');
    expect(formatStrategy({ strategy: 'random' })).toBe('random');
  });
});
