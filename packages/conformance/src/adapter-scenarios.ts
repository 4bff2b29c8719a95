import type { IncomingMessage, ServerResponse } from 'node:http';
import { createPetStore, DEFAULT_API_PATH, type PetStorage, type PetStore } from '@petstore/core';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, bearer } from './conformance/helpers.js';
import type { StoreHost } from './hosted.js';
import { POUR_TOTAL, type PourOutcome, pour } from './pour.js';
import type { RunningServer } from './targets.js';
import type { ConformanceTarget } from './wire.js';

/** The store built here and mounted by your adapter on a Node server. */
interface InProcessMounts {
  /** A fresh, empty storage for each scenario. */
  readonly storage: () => PetStorage | Promise<PetStorage>;
  /**
   * Serves `store` through your adapter mounted at `prefix` (`/v1`, `/api/pets-v1`),
   * with nothing else routed, on 127.0.0.1. The scenario closes it.
   */
  readonly mount: (store: PetStore, prefix: string) => Promise<RunningServer>;
  /** The same, told that clients see the API at `publicPath` (a proxy rewrites the prefix). */
  readonly mountBehindProxy: (
    store: PetStore,
    prefix: string,
    publicPath: string,
  ) => Promise<RunningServer>;
  /** The same, mounted at `inner` inside a sub-app or plugin mounted at `outer`, if the host has such. */
  readonly mountNested?: (store: PetStore, outer: string, inner: string) => Promise<RunningServer>;
}

/** The store built and served by a host in another process or runtime. */
interface HostedMounts {
  readonly host: StoreHost;
  /**
   * What this host's runtime does with an oversized body below our code, with the reason
   * (say, it closes the connection at once): checked instead of the usual outcome.
   */
  readonly oversizedBody?: {
    readonly reason: string;
    readonly check: (outcome: PourOutcome) => void;
  };
}

export type AdapterScenarioOptions = (InProcessMounts | HostedMounts) & {
  /** Suite name, e.g. 'express'. */
  readonly name: string;
};

const MIB = 1024 * 1024;
const AUTH = bearer();
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
const newPet = (name: string) => JSON.stringify({ name, categoryId: 1 });

/** Mount points every adapter must handle: the usual one and a deeper one. */
export const MOUNT_PREFIXES: readonly string[] = [DEFAULT_API_PATH, '/api/pets-v1'];

/** A mounted store: how to reach it, and the bytes its server read, when it runs here. */
interface Mounted extends ConformanceTarget {
  readonly origin: string;
  /**
   * Bytes read off the first request's connection by the time its answer was written, or
   * undefined when the server is elsewhere. (What arrives after it, while the connection closes
   * lingering, is thrown away: not this count.)
   */
  bytesRead(): number | undefined;
}

type Mount = (prefix: string, publicPath?: string) => Promise<Mounted>;

/** Bytes read off the first request's connection when its answer was written, from the server's side. */
function watched(server: RunningServer): Mounted {
  let read: number | undefined;
  server.server.once('request', (req: IncomingMessage, res: ServerResponse) => {
    res.once('finish', () => {
      read = req.socket.bytesRead;
    });
  });
  return { ...server, bytesRead: () => read };
}

function mountOf(options: AdapterScenarioOptions): Mount {
  if ('host' in options) {
    const { host } = options;
    return async (prefix, publicPath) => {
      const hosted = await host.start({ mountPath: prefix, publicPath });
      return { ...hosted, bytesRead: () => undefined };
    };
  }
  const store = async () =>
    createPetStore({ storage: await options.storage(), apiKeys: [API_KEY] });
  return async (prefix, publicPath) =>
    watched(
      publicPath === undefined
        ? await options.mount(await store(), prefix)
        : await options.mountBehindProxy(await store(), prefix, publicPath),
    );
}

/**
 * What every adapter must do beside the HTTP contract, written once: links
 * follow the mount, every path under it is the core's and none beside it,
 * and an oversized body is refused before it is read. Run with each prefix.
 */
export function runAdapterScenarios(options: AdapterScenarioOptions): void {
  const mount = mountOf(options);
  const mountNested = 'host' in options ? undefined : options.mountNested;
  describe.each(MOUNT_PREFIXES)(`adapter: ${options.name} mounted at %s`, (prefix) => {
    let running: Mounted | undefined;
    afterEach(async () => {
      await running?.close();
      running = undefined;
    });
    const serve = async (publicPath?: string): Promise<Mounted> => {
      running = await mount(prefix, publicPath);
      return running;
    };
    const locationOfNewPet = async (api: ConformanceTarget, path: string) => {
      const created = await api.send({
        method: 'POST',
        path,
        headers: JSON_AUTH,
        body: newPet('Rex'),
      });
      return [created.status, created.headers.location];
    };

    it('links follow the mount: Location, the next page and the successor-version', async () => {
      const api = await serve();
      const post = { method: 'POST', path: `${prefix}/pets`, headers: JSON_AUTH };
      const created = await api.send({ ...post, body: newPet('Rex') });
      expect([created.status, created.headers.location]).toEqual([201, `${prefix}/pets/1`]);
      await api.send({ ...post, body: newPet('Tom') });

      const first = await api.send({
        method: 'GET',
        path: `${prefix}/pets?limit=1`,
        headers: AUTH,
      });
      const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.link ?? '')?.[1];
      expect(next, first.headers.link).toMatch(new RegExp(`^${prefix}/pets\\?limit=1&cursor=`));
      const second = await api.send({ method: 'GET', path: next ?? '', headers: AUTH });
      expect(JSON.parse(second.body)).toEqual([
        { id: 2, name: 'Tom', categoryId: 1, status: 'available' },
      ]);

      const old = await api.send({ method: 'GET', path: `${prefix}/pets/1`, headers: AUTH });
      expect(old.headers.link).toBe(`<${prefix}/pets>; rel="successor-version"`);
    });

    it('takes the public path over the mount for links (a proxy rewrites the prefix)', async () => {
      const api = await serve(`/public${prefix}`);
      expect(await locationOfNewPet(api, `${prefix}/pets`)).toEqual([
        201,
        `/public${prefix}/pets/1`,
      ]);
    });

    if (mountNested !== undefined) {
      it('includes every level of a nested mount in links', async () => {
        const store = createPetStore({
          storage: await (options as InProcessMounts).storage(),
          apiKeys: [API_KEY],
        });
        running = watched(await mountNested(store, '/tenant', prefix));
        const path = `/tenant${prefix}/pets`;
        expect(await locationOfNewPet(running, path)).toEqual([201, `/tenant${prefix}/pets/1`]);
      });
    }

    it('answers every path under the mount as the core decides, with a Content-Length', async () => {
      const api = await serve();
      // Undecodable and encoded-slash paths too: some host routers refuse or decode them.
      const paths = ['', '/', '/nothing-here', '/pets/1/x', '/%ff', '/pets%2F1'];
      for (const path of paths.map((below) => `${prefix}${below}`)) {
        const anonymous = await api.send({ method: 'GET', path });
        expect([path, anonymous.status, JSON.parse(anonymous.body).code]).toEqual([
          path,
          401,
          'unauthorized',
        ]);
        const known = await api.send({ method: 'GET', path, headers: AUTH });
        expect([path, known.status, JSON.parse(known.body).code]).toEqual([path, 404, 'not_found']);
        expect(known.headers['content-length']).toBe(String(Buffer.byteLength(known.body)));
        expect(known.headers['transfer-encoding']).toBeUndefined();
      }
    });

    it("leaves a sibling path that only shares the prefix's letters to the host", async () => {
      const api = await serve();
      const sibling = await api.send({ method: 'GET', path: `${prefix}x/pets`, headers: AUTH });
      expect(sibling.status).toBe(404);
      // Every answer of the core carries a request id; the host's do not.
      expect(sibling.headers['x-request-id']).toBeUndefined();
    });

    describe('an oversized body', () => {
      const expected = 'host' in options ? options.oversizedBody : undefined;
      const checkOutcome = (outcome: PourOutcome, api: Mounted) => {
        if (expected !== undefined) return expected.check(outcome);
        expect(outcome.status).toBe(413);
        expect(JSON.parse(outcome.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
        // The rest of the body is not a next request: the connection ends with the answer.
        expect(outcome.connection).toBe('close');
        expect(outcome.sentBeforeResponse).toBeLessThan(POUR_TOTAL);
        const read = api.bytesRead();
        if (read !== undefined) expect(read).toBeLessThan(MIB);
      };
      const label = expected === undefined ? '' : ` [runtime: ${expected.reason}]`;

      it(`sent chunked gets the core's 413 long before it ends, and the server reads little of it${label}`, async () => {
        const api = await serve();
        checkOutcome(await pour(api.origin, JSON_AUTH, `${prefix}/pets`), api);
      });

      it(`announced by Content-Length gets the core's 413 before it is sent${label}`, async () => {
        const api = await serve();
        const headers = { ...JSON_AUTH, 'content-length': String(POUR_TOTAL) };
        checkOutcome(await pour(api.origin, headers, `${prefix}/pets`), api);
      });
    });
  });
}
