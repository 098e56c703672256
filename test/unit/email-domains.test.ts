// Free and disposable email domains: exact domains, domains under them, any letter case, and
// internationalised domains however the address writes them; other domains pass.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isFreeOrDisposable } from '../../src/domain/email-domains.ts';

describe('free and disposable email domains', () => {
  it('knows free providers and throw-away domains, and the domains under them', () => {
    for (const email of ['ada@gmail.com', 'ada@GMail.COM', 'x@mailinator.com', 'x@eu.mailinator.com', 'x@yahoo.co.uk']) {
      assert.equal(isFreeOrDisposable(email), true, email);
    }
  });

  it('passes business domains, including ones that only end like a listed one', () => {
    for (const email of ['ada@example-corp.com', 'ada@notgmail.com', 'ada@gmail.com.example.org', 'ada@localhost', 'no-at-sign', 'ada@']) {
      assert.equal(isFreeOrDisposable(email), false, email);
    }
  });

  it('matches an internationalised domain written in Unicode or in punycode', () => {
    assert.equal(isFreeOrDisposable('x@müll.email'), true);
    assert.equal(isFreeOrDisposable('x@xn--mll-hoa.email'), true);
    assert.equal(isFreeOrDisposable('x@MÜLL.email'), true);
  });
});
