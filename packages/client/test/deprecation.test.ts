import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/uses-get-pet.ts', import.meta.url));
/**
 * TypeScript's "'{0}' is deprecated." and "The signature '{0}' of '{1}' is deprecated."
 * suggestions: the strike-through an editor draws.
 */
const DEPRECATED = [6385, 6387];

it('getPet is @deprecated for TypeScript (as in the API document); the other calls are not', () => {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    strict: true,
    noEmit: true,
  };
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [FIXTURE],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) =>
      ts.sys.fileExists(name)
        ? ts.ScriptSnapshot.fromString(readFileSync(name, 'utf8'))
        : undefined,
    getCurrentDirectory: () => process.cwd(),
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  const service = ts.createLanguageService(host);
  const errors = service.getSemanticDiagnostics(FIXTURE);
  expect(errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  const text = readFileSync(FIXTURE, 'utf8');
  const deprecated = service
    .getSuggestionDiagnostics(FIXTURE)
    .filter((d) => DEPRECATED.includes(d.code))
    .map((d) => text.slice(d.start, (d.start ?? 0) + (d.length ?? 0)));
  expect(deprecated).toEqual(['getPet']);
});
