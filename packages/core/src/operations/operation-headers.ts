import type { HeaderDoc, OperationHeader } from './operation-spec.js';

/** Headers some operations add to their answers: the next page's link, the deprecation trio. */

export const nextLink: Record<string, HeaderDoc> = {
  Link: {
    description: 'RFC 8288 link to the next page (`rel="next"`), absent on the last page.',
    schema: { type: 'string' },
  },
};

/** RFC 9745 `Deprecation`, RFC 8594 `Sunset`, and the successor link. */
export const deprecation: readonly OperationHeader[] = [
  {
    name: 'Deprecation',
    description: 'RFC 9745: when this operation was deprecated, as `@<unix-seconds>`.',
    value: (options) => `@${Math.floor(options.deprecatedAt.getTime() / 1000)}`,
  },
  {
    name: 'Sunset',
    description: 'RFC 8594: when this operation will be removed.',
    value: (options) => options.sunsetAt.toUTCString(),
  },
  {
    name: 'Link',
    description: 'The replacement: `rel="successor-version"`.',
    value: (_, publicPath) => `<${publicPath}/pets>; rel="successor-version"`,
  },
];
