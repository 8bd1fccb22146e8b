import { ApiError, HpnbClient, MAX_PAGE, compareUrl, leaderboardUrl, resultsUrl, stopUrl, trialArtifactsUrl, trialLogUrl, trialsUrl, viewUrl, type IResult } from '../src/api';
import { experimentAction, formatProgress } from '../src/format';

describe('URLs', () => {
  it('builds paged trial and result paths', () => {
    expect(trialsUrl('mlp-lr', 2000, 1000)).toBe('hpnb/api/experiments/mlp-lr/trials?offset=2000&limit=1000');
    expect(resultsUrl('mlp-lr', { after: 7 })).toBe('hpnb/api/experiments/mlp-lr/results?after=7&limit=1000');
    expect(resultsUrl('a.b_c', { trial: 3 })).toBe('hpnb/api/experiments/a.b_c/results?trial=3&after=0&limit=1000');
    expect(stopUrl('x')).toBe('hpnb/api/experiments/x/stop');
  });
  it('refuses names the server would refuse, before any request', () => {
    expect(() => stopUrl('../../api/contents')).toThrow(ApiError);
    expect(() => trialsUrl('a b')).toThrow(/not an experiment name/);
    expect(() => trialsUrl('x'.repeat(129))).toThrow(ApiError);
  });
});

/** A requester that answers from an in-memory list of results, like the server's cursor pages. */
function resultServer(total: number): { requested: string[]; request: (path: string) => Promise<Response> } {
  const rows: IResult[] = Array.from({ length: total }, (_, i) => ({
    trial_id: i % 3,
    seq: i,
    step: i,
    time: i,
    value: i,
    metrics: {}
  }));
  const requested: string[] = [];
  const request = async (path: string) => {
    requested.push(path);
    const query = new URLSearchParams(path.split('?')[1]);
    const after = Number(query.get('after'));
    const limit = Number(query.get('limit'));
    const page = rows.slice(after, after + limit);
    const body = JSON.stringify({ results: page, next: after + page.length });
    return { ok: true, status: 200, statusText: 'OK', text: async () => body } as Response;
  };
  return { requested, request };
}

describe('HpnbClient', () => {
  it('follows the result cursor until a short page', async () => {
    const server = resultServer(2 * MAX_PAGE + 5);
    const client = new HpnbClient(server.request);
    const { results, next } = await client.results('s');
    expect(results.map(r => r.seq)).toEqual(Array.from({ length: 2 * MAX_PAGE + 5 }, (_, i) => i));
    expect(next).toBe(2 * MAX_PAGE + 5);
    expect(server.requested).toHaveLength(3);
    const again = await client.results('s', next);
    expect(again.results).toEqual([]);
  });
  it('turns an error status into an ApiError with the server message', async () => {
    const client = new HpnbClient(
      async () =>
        ({
          ok: false,
          status: 409,
          statusText: 'Conflict',
          text: async () => JSON.stringify({ message: 'only a running search can be stopped' })
        }) as Response
    );
    await expect(client.stop('done')).rejects.toMatchObject({
      status: 409,
      message: 'only a running search can be stopped'
    });
  });
});

describe('experiment JSON', () => {
  const answer = (fields: Record<string, unknown>) => async () =>
    ({
      ok: true,
      status: 200,
      statusText: 'OK',
      text: async () =>
        JSON.stringify({
          name: 's',
          strategy: 'random',
          metric: 'loss',
          mode: 'min',
          budget: 8,
          done: 3,
          pending: 0,
          running: 0,
          completed: 3,
          stopped: 0,
          failed: 0,
          interrupted: 2,
          best: null,
          created: 1,
          updated: 2,
          message: null,
          driver: 'host:123',
          stop_requested: false,
          ...fields
        })
    }) as Response;

  it('decides Stop or Resume… from the fields the server sends', async () => {
    const interrupted = await new HpnbClient(answer({ state: 'INTERRUPTED', active: false, resumable: true })).experiment('s');
    expect(experimentAction(interrupted)).toBe('resume');
    expect(formatProgress(interrupted)).toBe('3 / 8 · 2 interrupted');
    const running = await new HpnbClient(answer({ state: 'RUNNING', active: true, resumable: false })).experiment('s');
    expect(experimentAction(running)).toBe('stop');
  });
});

describe('view URLs', () => {
  it('builds the sorted leaderboard page and the plot routes', () => {
    expect(leaderboardUrl('a', { offset: 100, limit: 100, sort: 'param:lr', order: 'desc' })).toBe(
      'hpnb/api/experiments/a/leaderboard?offset=100&limit=100&sort=param%3Alr&order=desc'
    );
    expect(viewUrl('a', 'curves', { trial: 3 })).toBe('hpnb/api/experiments/a/curves?trial=3');
    expect(viewUrl('a', 'history', { order: 'end', trial: undefined })).toBe('hpnb/api/experiments/a/history?order=end');
    expect(trialLogUrl('a', 7)).toBe('hpnb/api/experiments/a/trials/7/logs');
    expect(trialArtifactsUrl('a', 7)).toBe('hpnb/api/experiments/a/trials/7/artifacts');
    expect(compareUrl(['a', 'b.c'])).toBe('hpnb/api/compare?name=a&name=b.c');
  });
  it('refuses names and trial ids the server would refuse', () => {
    expect(() => compareUrl(['a', '../x'])).toThrow(ApiError);
    expect(() => trialLogUrl('a', -1)).toThrow(/not a trial id/);
    expect(() => trialLogUrl('a', 1.5)).toThrow(ApiError);
    expect(() => trialArtifactsUrl('a', -2)).toThrow(/not a trial id/);
  });
});
