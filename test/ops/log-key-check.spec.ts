// The suite's log check (log-key-check.global.ts) itself: it finds keys, and it cannot pass on a
// log that shows nothing.
import { describe, expect, it } from 'vitest';
import { demoKeys } from '../../src/reference-api/demo-users.ts';
import { checkLog } from './log-key-check.global.ts';

const requestLine = JSON.stringify({ level: 'info', requestId: 'r-1', msg: 'graphql request', outcome: 'ok' });

describe('the log key check', () => {
  it('passes a log of request lines without keys', () => {
    expect(checkLog(`${requestLine}\n`, true)).toEqual([]);
  });

  it('fails an empty log, or one without request lines, when gateway specs ran', () => {
    expect(checkLog('', true)).toEqual([expect.stringContaining('pass vacuously')]);
    expect(checkLog(`${JSON.stringify({ msg: 'gateway listening' })}\n`, true)).toHaveLength(1);
    expect(checkLog('', false)).toEqual([]);
  });

  it('finds a demo key, any phx_ token and any bearer credential', () => {
    const demo = demoKeys()[1]!;
    expect(checkLog(`${requestLine}\n{"note":"${demo.key}"}\n`, true)).toEqual([
      `the reference API's ${demo.label} key appears`,
      'a phx_ token appears (line 2)',
    ]);
    expect(checkLog(`${requestLine}\n{"header":"Bearer abc"}\n`, true)).toEqual(['a bearer credential appears (line 2)']);
  });
});
