// changeCache: values are reused only under the change token they were read under.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { changeCache } from '../../src/domain/change-cache.ts';

describe('changeCache', () => {
  const setup = (max = 10) => {
    let token: string | undefined = 't1';
    let loads = 0;
    const cache = changeCache<string, string>(async () => token, max);
    const get = (key: string, keep?: (v: string) => boolean) => cache.get(key, async () => `${key}#${++loads}`, keep);
    return { get, setToken: (t: string | undefined) => (token = t), loads: () => loads };
  };

  it('reuses a value while the token stays the same', async () => {
    const c = setup();
    assert.equal(await c.get('a'), 'a#1');
    assert.equal(await c.get('a'), 'a#1');
    assert.equal(c.loads(), 1);
  });

  it('reads again after the token changed', async () => {
    const c = setup();
    await c.get('a');
    c.setToken('t2');
    assert.equal(await c.get('a'), 'a#2');
  });

  it('remembers nothing while there is no token', async () => {
    const c = setup();
    c.setToken(undefined);
    assert.equal(await c.get('a'), 'a#1');
    assert.equal(await c.get('a'), 'a#2');
  });

  it('does not remember values that keep refuses', async () => {
    const c = setup();
    await c.get('a', () => false);
    assert.equal(await c.get('a'), 'a#2');
  });

  it('drops the least recently used entry when full', async () => {
    const c = setup(2);
    await c.get('a');
    await c.get('b');
    await c.get('a');
    await c.get('c');
    assert.equal(await c.get('a'), 'a#1');
    assert.equal(await c.get('b'), 'b#4');
  });
});
