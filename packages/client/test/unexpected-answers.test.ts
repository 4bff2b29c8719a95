import { afterEach, describe, expect, it } from 'vitest';
import { createPetStoreClient, PetStoreError } from '../src/index.js';
import { type StubServer, stubServer } from './support/stub-server.js';

// Answers that are not the service's own, as a captive portal or a misconfigured proxy sends
// them, from a real server on 127.0.0.1.

const servers: StubServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function htmlServer(status: number): Promise<StubServer> {
  const server = await stubServer((_request, response) => {
    response.writeHead(status, { 'content-type': 'text/html', 'x-request-id': 'proxy-1' });
    response.end('<html><body>Sign in to the Wi-Fi</body></html>');
  });
  servers.push(server);
  return server;
}

describe('answers that are not the service’s', () => {
  it('a 2xx whose body is not JSON: PetStoreError unexpected_response, not retried', async () => {
    const server = await htmlServer(200);
    const client = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: 'k', retries: 3 });
    for (const call of [
      () => client.listPets(),
      () => client.createPet({ name: 'Rex', categoryId: 1, status: 'available' }),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PetStoreError);
      expect(error).toMatchObject({
        status: 200,
        code: 'unexpected_response',
        message: 'Unexpected answer: HTTP 200 OK with a body that is not JSON.',
        requestId: 'proxy-1',
      });
    }
    expect(server.requests).toHaveLength(2);
  });

  it('an error status with a page instead of the Error body: unexpected_response, not retried', async () => {
    const server = await htmlServer(502);
    const client = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: 'k', retries: 3 });
    const error = await client.listPets().catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 502,
      code: 'unexpected_response',
      message: 'Unexpected answer: HTTP 502 Bad Gateway.',
      requestId: 'proxy-1',
    });
    expect(server.requests).toHaveLength(1);
  });
});
