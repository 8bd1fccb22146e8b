import { ApiError, HpnbClient, commandUrl, commandsUrl } from '../src/api';
import { answerStatus, checkedCount, commandLabel, controlStates, failureStatus, sendingStatus } from '../src/commands';

const running = { state: 'RUNNING', active: true };

describe('which controls make sense', () => {
  it('turns every control off while no driver runs the search, saying why', () => {
    for (const state of ['COMPLETED', 'STOPPED', 'INTERRUPTED']) {
      const controls = controlStates({ state, active: false }, { trial_id: 2, state: 'PAUSED' });
      expect(Object.values(controls).map(control => control.enabled)).toEqual([false, false, false, false, false]);
      expect(controls.extend.title).toBe(`the search is ${state.toLowerCase()}: only a running search takes commands`);
    }
  });
  it('offers extend and parallel on a running search, and the trial controls once a trial is selected', () => {
    const none = controlStates(running, null);
    expect([none.extend.enabled, none.parallel.enabled]).toEqual([true, true]);
    expect([none.stopTrial.enabled, none.pauseTrial.enabled, none.resumeTrial.enabled]).toEqual([false, false, false]);
    expect(none.pauseTrial.title).toBe('select a trial in the leaderboard or a plot first');
  });
  it('follows the selected trial state as the dashboard does', () => {
    const enabled = (state: string | null) => {
      const c = controlStates(running, { trial_id: 4, state });
      return [c.stopTrial.enabled, c.pauseTrial.enabled, c.resumeTrial.enabled];
    };
    expect(enabled('RUNNING')).toEqual([true, true, false]);
    expect(enabled('PENDING')).toEqual([true, true, false]);
    expect(enabled('PAUSED')).toEqual([true, false, true]);
    expect(enabled('COMPLETED')).toEqual([false, false, false]);
    expect(enabled(null)).toEqual([true, true, true]); // not on the page: the driver decides
    const done = controlStates(running, { trial_id: 4, state: 'COMPLETED' });
    expect(done.pauseTrial.title).toBe('trial 4 is completed: only a running or pending trial can be paused');
    expect(controlStates(running, { trial_id: 4, state: 'RUNNING' }).resumeTrial.title).toBe('trial 4 is running, not paused');
  });
});

describe('counts typed in', () => {
  it('takes whole numbers in range and says what is wrong with the others', () => {
    expect(checkedCount('extend', ' 12 ')).toBe(12);
    expect(checkedCount('parallel', '10000')).toBe(10000);
    expect(checkedCount('extend', '0')).toBe('extend: the number of trials to add must be at least 1 (got 0)');
    expect(checkedCount('extend', '-3')).toBe('extend: the number of trials to add must be a whole number (got "-3")');
    expect(checkedCount('parallel', '2.5')).toBe('parallel: the number of trials at once must be a whole number (got "2.5")');
    expect(checkedCount('parallel', '10001')).toBe('parallel: the number of trials at once must be at most 10000 (got 10001)');
    expect(checkedCount('extend', '')).toMatch(/must be a whole number/);
  });
});

describe('the status line', () => {
  it('shows the driver reply, that it has not answered yet, or the reason of a refusal', () => {
    const done = { id: 3, kind: 'pause_trial' as const, value: 3, state: 'done' as const, reply: 'trial 3 pauses at its next decision point, from its latest checkpoint' };
    expect(answerStatus(done)).toEqual({ text: done.reply, kind: 'done' });
    const pending = { ...done, state: 'pending' as const, reply: 'pause_trial 3 was sent; the driver has not answered yet' };
    expect(answerStatus(pending).kind).toBe('pending');
    expect(failureStatus('stop_trial', 7, new ApiError(409, 'trial 7 already finished (COMPLETED)'))).toEqual({
      text: 'trial 7 already finished (COMPLETED)',
      kind: 'refused'
    });
    expect(failureStatus('extend', 5, new ApiError(503, 'the store is busy'))).toEqual({ text: 'Cannot extend by 5: the store is busy', kind: 'refused' });
    expect(sendingStatus('parallel', 2).text).toBe('Sending set parallel to 2…');
    expect(['stop', 'stop_trial', 'resume_trial'].map(kind => commandLabel(kind as 'stop', 1))).toEqual(['stop the search', 'stop trial 1', 'resume trial 1']);
  });
});

describe('sending a command', () => {
  it('posts kind and value to the commands route and returns the answer, or rejects with the refusal', async () => {
    const sent: [string, RequestInit | undefined][] = [];
    const answers = [
      { status: 200, body: { id: 1, kind: 'extend', value: 5, state: 'done', reply: "search 's' has a budget of 9 trials now (+5)" } },
      { status: 409, body: { message: 'trial 1 already finished (STOPPED)' } }
    ];
    const client = new HpnbClient(async (path, init) => {
      sent.push([path, init]);
      const { status, body } = answers[sent.length - 1];
      return { ok: status < 400, status, statusText: '', text: async () => JSON.stringify(body) } as Response;
    });
    expect((await client.command('s', 'extend', 5)).reply).toBe("search 's' has a budget of 9 trials now (+5)");
    await expect(client.command('s', 'stop_trial', 1)).rejects.toMatchObject({ status: 409, message: 'trial 1 already finished (STOPPED)' });
    expect(sent.map(([path, init]) => [path, init?.method, init?.body])).toEqual([
      ['hpnb/api/experiments/s/commands', 'POST', '{"kind":"extend","value":5}'],
      ['hpnb/api/experiments/s/commands', 'POST', '{"kind":"stop_trial","value":1}']
    ]);
    expect(() => commandsUrl('../x')).toThrow(ApiError);
  });
  it('reads a command again by its id, and shows a later refusal as one', async () => {
    const refused = { id: 9, kind: 'extend', value: 2, state: 'refused', reply: "search 's' is not running: its driver is gone (INTERRUPTED)" };
    const paths: string[] = [];
    const client = new HpnbClient(async path => {
      paths.push(path);
      return { ok: true, status: 200, statusText: '', text: async () => JSON.stringify(refused) } as Response;
    });
    expect(answerStatus(await client.commandAnswer('s', 9))).toEqual({ text: refused.reply, kind: 'refused' });
    expect(paths).toEqual(['hpnb/api/experiments/s/commands/9']);
    expect(() => commandUrl('s', -1)).toThrow(/not a command id/);
    expect(() => commandUrl('s', 1.5)).toThrow(ApiError);
  });
});
