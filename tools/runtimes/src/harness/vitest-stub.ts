// What the conformance cases import from vitest, for a bundle that only builds their stores:
// the assertions run in the suite, never here. Case tables build matchers at load time
// (`expect.any(Number)`): those become inert placeholders.
const suiteOnly = (): never => {
  throw new Error('vitest runs in the suite, not in the host');
};
export const expect = new Proxy(suiteOnly, {
  get: (target, property) =>
    property in target
      ? Reflect.get(target, property)
      : (...args: unknown[]) => ({ placeholder: String(property), args }),
});
export const it = suiteOnly;
export const describe = suiteOnly;
export const afterEach = suiteOnly;
export const afterAll = suiteOnly;
export const beforeAll = suiteOnly;
