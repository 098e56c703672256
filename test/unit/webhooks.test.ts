// Pure webhook rules: which addresses the sender may connect to, the retry schedule with its jitter, and the
// Standard Webhooks signature (checked against the official `standardwebhooks` package).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { PUBLIC_ONLY, refusedAddress } from '../../src/domain/webhook-urls.ts';
import { nextAttemptAt, RETRY_JITTER, RETRY_SCHEDULE_MS } from '../../src/domain/webhook-delivery.ts';
import { signature } from '../../src/webhook-sender.ts';
import { sharedWakeGate } from '../../src/webhook-thread.ts';

describe('webhook addresses', () => {
  it('allows public unicast addresses, and loopback only through a loopback URL', () => {
    assert.equal(refusedAddress('93.184.216.34', false, PUBLIC_ONLY), undefined);
    assert.equal(refusedAddress('2606:2800:220:1::1', false, PUBLIC_ONLY), undefined);
    assert.equal(refusedAddress('127.0.0.1', true, PUBLIC_ONLY), undefined);
    assert.equal(refusedAddress('::1', true, PUBLIC_ONLY), undefined);
    assert.match(refusedAddress('127.0.0.1', false, PUBLIC_ONLY)!, /loopback/);
  });

  it('refuses private, link-local, unique-local and mapped private addresses unless the operator allows them', () => {
    for (const address of ['10.1.2.3', '172.16.0.1', '192.168.0.1', '169.254.169.254', 'fd00::1', 'fe80::1', '::ffff:10.0.0.1', '100.64.0.1']) {
      assert.match(refusedAddress(address, false, PUBLIC_ONLY)!, /private range|range/, address);
      assert.equal(refusedAddress(address, false, { allowHttp: false, allowPrivate: true }), undefined, address);
    }
    for (const address of ['0.0.0.0', '224.0.0.1', '255.255.255.255', '::']) {
      assert.ok(refusedAddress(address, false, { allowHttp: true, allowPrivate: true }), address);
    }
  });
});

describe('webhook retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±10 %), then gives up', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempts, r) => {
        const at = new Date('2026-01-01T00:00:00.000Z');
        const wait = Date.parse(nextAttemptAt(at, attempts, () => r)!) - at.getTime();
        const base = RETRY_SCHEDULE_MS[attempts - 1]!;
        return wait >= Math.floor(base * (1 - RETRY_JITTER)) && wait <= Math.ceil(base * (1 + RETRY_JITTER));
      }),
    );
    assert.equal(nextAttemptAt(new Date(0), 8), null);
    assert.deepEqual(RETRY_SCHEDULE_MS, [5e3, 300e3, 1800e3, 7200e3, 18000e3, 36000e3, 36000e3]);
  });
});

describe('webhook signatures', () => {
  it('verify with the standardwebhooks package for any body', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    fc.assert(
      fc.property(fc.string(), (text) => {
        const body = JSON.stringify({ text });
        const timestamp = Math.floor(Date.now() / 1000);
        const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature(secret, 'msg_1', timestamp, body) };
        new Webhook(secret).verify(body, headers);
        assert.equal(headers['webhook-signature'], new Webhook(secret).sign('msg_1', new Date(timestamp * 1000), body));
      }),
    );
  });
});

describe('webhook thread wake gate', () => {
  const gate = () => sharedWakeGate(new SharedArrayBuffer(8));

  it('work marked while the thread is busy is found when it would go idle, without a message', () => {
    const g = gate();
    g.busy();
    assert.equal(g.mustPost(), false, 'a busy thread is not told');
    assert.equal(g.idle(), true, 'going idle, it finds the work and runs another round');
    assert.equal(g.mustPost(), false, 'it is busy again');
  });

  it('work marked once the thread is idle is posted; a round started clears the mark', () => {
    const g = gate();
    g.busy();
    assert.equal(g.idle(), false, 'nothing pending: it waits for the idle poll');
    assert.equal(g.mustPost(), true, 'an idle thread is told');
    g.busy();
    assert.equal(g.idle(), false, 'the round that started read what was marked before it');
  });
});
