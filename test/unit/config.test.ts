import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import fc from 'fast-check';
import { CONFIG_VARIABLES, ConfigError, blobWarning, loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';

const CWD = resolve('/srv/tycho');

/** Asserts that loading `env` throws a ConfigError whose message names `variable`. */
function assertRejects(env: Record<string, string>, variable: string, also?: RegExp): void {
  assert.throws(
    () => loadConfig(env, CWD),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
      assert.ok(error.message.includes(variable), `message does not name ${variable}: ${error.message}`);
      if (also) assert.match(error.message, also);
      return true;
    },
    `${JSON.stringify(env)} should be rejected`,
  );
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({}, CWD);
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.deepEqual(config.database, { engine: 'sqlite', path: resolve(CWD, 'data/tycho.sqlite') });
    assert.equal(config.databaseUrl, './data/tycho.sqlite');
    assert.equal(config.apiKey, undefined);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.bodyLimit, 1024 * 1024);
  });

  it('treats empty variables as unset', () => {
    const config = loadConfig({ PORT: '', HOST: ' ', DATABASE_URL: '', TYCHO_API_KEY: '', LOG_LEVEL: '', TYCHO_BODY_LIMIT: '' }, CWD);
    assert.deepEqual({ ...config }, { ...loadConfig({}, CWD) });
  });

  it('is frozen', () => {
    const config = loadConfig({}, CWD);
    assert.ok(Object.isFrozen(config));
    assert.throws(() => {
      (config as { port: number }).port = 1;
    });
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        PORT: '0',
        HOST: '0.0.0.0',
        DATABASE_URL: '/var/lib/tycho/db.sqlite',
        TYCHO_API_KEY: 'exactly-16-chars',
        LOG_LEVEL: 'DEBUG',
        TYCHO_BODY_LIMIT: '2048',
      },
      CWD,
    );
    assert.equal(config.port, 0);
    assert.equal(config.host, '0.0.0.0');
    assert.deepEqual(config.database, { engine: 'sqlite', path: '/var/lib/tycho/db.sqlite' });
    assert.equal(config.databaseUrl, '/var/lib/tycho/db.sqlite');
    assert.equal(config.apiKey, 'exactly-16-chars');
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.bodyLimit, 2048);
  });

  it('accepts every port from 0 to 65535', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65535 }), (port) => {
        assert.equal(loadConfig({ PORT: String(port) }, CWD).port, port);
      }),
    );
  });

  it('rejects a bad PORT, naming it', () => {
    for (const value of ['abc', '-1', '65536', '1.5', '80x', '1e3', '0x50', '99999999999']) assertRejects({ PORT: value }, 'PORT');
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 8 }), (value) => {
        fc.pre(value.trim() !== '' && !/^\d+$/.test(value.trim()));
        assertRejects({ PORT: value }, 'PORT');
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 65536, max: 10_000_000 }), (port) => {
        assertRejects({ PORT: String(port) }, 'PORT');
      }),
    );
  });

  it('rejects a bad TYCHO_BODY_LIMIT, naming it', () => {
    for (const value of ['abc', '0', '1023', '-5', '1.5', '2kb']) assertRejects({ TYCHO_BODY_LIMIT: value }, 'TYCHO_BODY_LIMIT');
    assert.equal(loadConfig({ TYCHO_BODY_LIMIT: '1024' }, CWD).bodyLimit, 1024);
  });

  it('rejects an unknown LOG_LEVEL, naming it', () => {
    for (const value of ['loud', 'verbose', 'warning', '3']) assertRejects({ LOG_LEVEL: value }, 'LOG_LEVEL');
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) {
      assert.equal(loadConfig({ LOG_LEVEL: level }, CWD).logLevel, level);
    }
  });

  it('rejects a TYCHO_API_KEY that is too short, too long or has spaces, naming it', () => {
    for (const value of ['short', 'fifteen-chars!!', 'has spaces in the middle', 'x'.repeat(257), 'tab\tinside-the-key', 'ünïcödé-is-not-ascii']) {
      assertRejects({ TYCHO_API_KEY: value }, 'TYCHO_API_KEY');
    }
    assert.equal(loadConfig({ TYCHO_API_KEY: 'x'.repeat(256) }, CWD).apiKey, 'x'.repeat(256));
  });

  it('selects PostgreSQL for postgres:// URLs with the pool size of DATABASE_POOL_SIZE', () => {
    for (const url of ['postgres://localhost/x', 'postgresql://user:pw@db:5432/tycho', 'POSTGRES://x/y']) {
      assert.deepEqual(loadConfig({ DATABASE_URL: url }, CWD).database, { engine: 'postgres', url, poolSize: 10 });
    }
    assert.deepEqual(loadConfig({ DATABASE_URL: 'postgres://h/db', DATABASE_POOL_SIZE: '3' }, CWD).database, { engine: 'postgres', url: 'postgres://h/db', poolSize: 3 });
    assertRejects({ DATABASE_URL: 'postgres://h/db', DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE');
  });

  it('rejects other schemes, naming DATABASE_URL', () => {
    for (const url of ['mysql://localhost/x', 'http://example.com/db.sqlite', 'file:']) assertRejects({ DATABASE_URL: url }, 'DATABASE_URL');
  });

  describe('DATABASE_URL selects SQLite for files', () => {
    const cases: [string, string][] = [
      ['db.sqlite', resolve(CWD, 'db.sqlite')],
      ['./data/other.sqlite', resolve(CWD, 'data/other.sqlite')],
      ['/var/lib/tycho.sqlite', '/var/lib/tycho.sqlite'],
      ['file:./rel.sqlite', resolve(CWD, 'rel.sqlite')],
      ['file:rel.sqlite', resolve(CWD, 'rel.sqlite')],
      ['file:/abs/path.sqlite', '/abs/path.sqlite'],
      ['file:///abs/url.sqlite', '/abs/url.sqlite'],
      ['file:///abs/with%20space.sqlite', '/abs/with space.sqlite'],
      ['file:/abs/query.sqlite?mode=rwc', '/abs/query.sqlite'],
      [':memory:', ':memory:'],
      ['file::memory:', ':memory:'],
    ];
    for (const [url, path] of cases) {
      it(url, () => {
        const config = loadConfig({ DATABASE_URL: url }, CWD);
        assert.deepEqual(config.database, { engine: 'sqlite', path });
        assert.equal(config.databaseUrl, url);
      });
    }
  });

  it('reads no variable outside CONFIG_VARIABLES (the CLI passes each command only the ones it lists)', () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get(_target, name) {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });
    loadConfig(env, CWD);
    assert.deepEqual([...read].filter((name) => !(CONFIG_VARIABLES as readonly string[]).includes(name)), []);
  });

  describe('where uploads are kept', () => {
    it('beside a SQLite file; in ./data for PostgreSQL; TYCHO_DATA_DIR wins', () => {
      assert.equal(loadConfig({ DATABASE_URL: '/var/lib/tycho/db.sqlite' }, CWD).dataDir, '/var/lib/tycho');
      assert.equal(loadConfig({}, CWD).dataDir, resolve(CWD, 'data'));
      assert.equal(loadConfig({ DATABASE_URL: 'postgres://h/db' }, CWD).dataDir, resolve(CWD, 'data'));
      assert.equal(loadConfig({ DATABASE_URL: 'postgres://h/db', TYCHO_DATA_DIR: 'files' }, CWD).dataDir, resolve(CWD, 'files'));
    });

    it('DATABASE_URL=:memory: has no data directory of its own (was: ./data), unless TYCHO_DATA_DIR is set', () => {
      for (const url of [':memory:', 'file::memory:']) {
        assert.equal(loadConfig({ DATABASE_URL: url }, CWD).dataDir, undefined);
        assert.equal(loadConfig({ DATABASE_URL: url, TYCHO_DATA_DIR: '/srv/uploads' }, CWD).dataDir, '/srv/uploads');
      }
    });

    it('TYCHO_BLOB_URL: a directory or file: URL keeps them there; s3://bucket/prefix with its settings names a bucket', () => {
      assert.deepEqual(loadConfig({}, CWD).blobs, { kind: 'local', dir: resolve(CWD, 'data/blobs'), explicit: false });
      assert.deepEqual(loadConfig({ DATABASE_URL: ':memory:' }, CWD).blobs, { kind: 'local', dir: undefined, explicit: false });
      assert.deepEqual(loadConfig({ TYCHO_BLOB_URL: 'uploads' }, CWD).blobs, { kind: 'local', dir: resolve(CWD, 'uploads'), explicit: true });
      assert.deepEqual(loadConfig({ TYCHO_BLOB_URL: 'file:///mnt/shared/tycho' }, CWD).blobs, { kind: 'local', dir: '/mnt/shared/tycho', explicit: true });
      assert.deepEqual(loadConfig({ TYCHO_BLOB_URL: 's3://tycho-files' }, CWD).blobs, {
        kind: 's3',
        bucket: 'tycho-files',
        prefix: '',
        endpoint: undefined,
        region: 'us-east-1',
        forcePathStyle: false,
        credentials: undefined,
        presignedDownloads: false,
      });
      const minio = loadConfig(
        {
          TYCHO_BLOB_URL: 's3://tycho/prod/uploads/',
          TYCHO_S3_ENDPOINT: 'http://minio:9000',
          AWS_REGION: 'eu-central-1',
          TYCHO_S3_FORCE_PATH_STYLE: 'true',
          TYCHO_S3_ACCESS_KEY_ID: 'id',
          TYCHO_S3_SECRET_ACCESS_KEY: 'secret',
          TYCHO_BLOB_PRESIGNED_DOWNLOADS: 'on',
        },
        CWD,
      ).blobs;
      assert.deepEqual(minio, {
        kind: 's3',
        bucket: 'tycho',
        prefix: 'prod/uploads/',
        endpoint: 'http://minio:9000',
        region: 'eu-central-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
        presignedDownloads: true,
      });
      assert.equal((loadConfig({ TYCHO_BLOB_URL: 's3://tycho', TYCHO_S3_REGION: 'auto', AWS_REGION: 'x' }, CWD).blobs as { region: string }).region, 'auto');
    });

    it('refuses a bad TYCHO_BLOB_URL or S3 setting with a message naming the variable and the accepted shape', () => {
      assertRejects({ TYCHO_BLOB_URL: 'https://bucket.example.com' }, 'TYCHO_BLOB_URL', /unsupported scheme.*s3:\/\/<bucket>/);
      assertRejects({ TYCHO_BLOB_URL: 's3://' }, 'TYCHO_BLOB_URL', /not a valid bucket URL/);
      assertRejects({ TYCHO_BLOB_URL: 's3://a' }, 'TYCHO_BLOB_URL', /3 to 63/);
      assertRejects({ TYCHO_BLOB_URL: 's3://under_score' }, 'TYCHO_BLOB_URL');
      assertRejects({ TYCHO_BLOB_URL: 's3://tycho', TYCHO_S3_ENDPOINT: 'minio:9000' }, 'TYCHO_S3_ENDPOINT', /http:\/\/ or https:\/\//);
      assertRejects({ TYCHO_BLOB_URL: 's3://tycho', TYCHO_S3_ACCESS_KEY_ID: 'id' }, 'TYCHO_S3_SECRET_ACCESS_KEY', /set both/);
      assertRejects({ TYCHO_BLOB_URL: 's3://tycho', TYCHO_S3_FORCE_PATH_STYLE: 'maybe' }, 'TYCHO_S3_FORCE_PATH_STYLE', /true or false/);
      assertRejects({ TYCHO_BLOB_PRESIGNED_DOWNLOADS: 'true' }, 'TYCHO_BLOB_PRESIGNED_DOWNLOADS', /needs TYCHO_BLOB_URL=s3:/);
    });

    it('warns when PostgreSQL is used with no blob setting (files would stay on one machine), and only then', () => {
      const postgres = 'postgres://h/db';
      assert.match(blobWarning(loadConfig({ DATABASE_URL: postgres }, CWD)) ?? '', /kept on this machine.*TYCHO_BLOB_URL=s3:/s);
      assert.equal(blobWarning(loadConfig({ DATABASE_URL: postgres, TYCHO_BLOB_URL: 's3://tycho' }, CWD)), undefined);
      assert.equal(blobWarning(loadConfig({ DATABASE_URL: postgres, TYCHO_BLOB_URL: '/mnt/nfs/tycho' }, CWD)), undefined);
      assert.equal(blobWarning(loadConfig({}, CWD)), undefined);
    });

    it('a :memory: runtime keeps uploads in a temporary directory that closing it removes', async () => {
      const saved = process.env.TMPDIR;
      const temp = mkdtempSync(join(tmpdir(), 'tycho-config-test-'));
      process.env.TMPDIR = temp;
      try {
        const runtime = await openRuntime(loadConfig({ DATABASE_URL: ':memory:', LOG_LEVEL: 'silent' }, CWD));
        await runtime.blobs.put('org/blob', Readable.from([Buffer.from('contents')]));
        const [dir, ...others] = readdirSync(temp);
        assert.ok(dir?.startsWith('tycho-data-') && others.length === 0, readdirSync(temp).join(', '));
        assert.deepEqual(await buffer((await runtime.blobs.get('org/blob'))!.stream), Buffer.from('contents'));
        await runtime.close();
        assert.deepEqual(readdirSync(temp), []);
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
        rmSync(temp, { recursive: true, force: true });
      }
    });
  });
});
