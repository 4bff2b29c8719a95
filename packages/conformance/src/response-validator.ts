import { createMount, DEFAULT_API_PATH } from '@petstore/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { WireResponse } from './wire.js';

type Json = Record<string, unknown>;

interface PathEntry {
  readonly pattern: RegExp;
  readonly template: string;
}

const pointer = (...parts: string[]): string =>
  parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/**
 * Checks a response against the schema the OpenAPI document gives for its
 * operation and status. A status the document does not list for a known
 * operation is itself a failure: the document must describe every answer.
 */
export function createResponseValidator(document: Json, mountPath = DEFAULT_API_PATH) {
  const mount = createMount({ mountPath });
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema(document, 'openapi.json');
  const paths = Object.keys(document.paths as Json).map<PathEntry>((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replaceAll('.', '\\.')}$`),
  }));

  return (method: string, path: string, response: WireResponse): string[] => {
    // Outside the mount no operation answers: the Error schema applies.
    const below = mount.below(path);
    const pathname = below === undefined ? undefined : (below.split('?')[0] ?? '') || '/';
    const entry =
      pathname === undefined ? undefined : paths.find(({ pattern }) => pattern.test(pathname));
    const operation =
      entry && ((document.paths as Json)[entry.template] as Json)[method.toLowerCase()];
    // Unknown paths (404) and methods (405) belong to no operation: they answer the Error schema.
    const schemaRef =
      operation === undefined || entry === undefined
        ? 'openapi.json#/components/schemas/Error'
        : undefined;
    if (schemaRef === undefined && entry !== undefined) {
      const responses = (operation as Json).responses as Json;
      const documented = responses[String(response.status)] as Json | undefined;
      if (documented === undefined) {
        return [
          `${method} ${entry.template} answered ${response.status}, which the OpenAPI document does not list`,
        ];
      }
      const content = documented.content as Json | undefined;
      if (
        content?.['application/json'] === undefined ||
        !('schema' in (content['application/json'] as Json))
      ) {
        return [];
      }
      const ref = `openapi.json#/${pointer('paths', entry.template, method.toLowerCase(), 'responses', String(response.status), 'content', 'application/json', 'schema')}`;
      return check(ajv, ref, response);
    }
    return check(ajv, schemaRef ?? '', response);
  };
}

function check(ajv: Ajv2020, ref: string, response: WireResponse): string[] {
  const validate = ajv.getSchema(ref);
  if (validate === undefined) return [`no schema at ${ref}`];
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return [`response body is not JSON: ${response.body.slice(0, 200)}`];
  }
  return validate(body)
    ? []
    : (validate.errors ?? []).map(
        (error) => `${ref}: ${error.instancePath} ${error.message ?? ''}`,
      );
}
