// SMTP_URL and SMTP_FROM: where program messages are sent, checked when the configuration is read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';

test('SMTP_URL accepts smtp:// and smtps:// URLs and is unset by default (the local outbox)', () => {
  assert.equal(loadConfig({}).smtpUrl, undefined);
  assert.equal(loadConfig({ SMTP_URL: 'smtp://user:pass@mail.example.com:587' }).smtpUrl, 'smtp://user:pass@mail.example.com:587');
  assert.equal(loadConfig({ SMTP_URL: ' smtps://mail.example.com ' }).smtpUrl, 'smtps://mail.example.com');
  assert.equal(loadConfig({ SMTP_FROM: 'Acme <news@acme.test>' }).mailFrom, 'Acme <news@acme.test>');
});

test('SMTP_URL refuses other schemes and non-URLs with a message naming it', () => {
  for (const value of ['http://mail.example.com', 'mail.example.com:25', 'smtp://']) {
    assert.throws(() => loadConfig({ SMTP_URL: value }), (error: unknown) => error instanceof ConfigError && /^SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/.test(error.message));
  }
});
