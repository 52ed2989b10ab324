/**
 * No code of the checkout uses one of mcpkit's own deprecated names (`ServerSession`,
 * `ctx.server`, `server.sessions`, the JSON-RPC `Session`, `setSessionHandler`, the
 * once-per-connection `use(middleware)` form, …): they stay only for users who have not
 * migrated yet (docs/migrating.md). The only uses allowed are the tests that prove an alias
 * still forwards, and the alias's own forwarding code, each listed in {@link ALLOWED}.
 *
 * Design note: the check asks the TypeScript checker, not a regex: it compiles the test
 * project (tsconfig.test.json: src/ with its tests, test/, bench/, conformance/,
 * examples/) and, for every identifier, resolves what it names. A use is deprecated when
 * every declaration of the name carries `@deprecated` (a property, getter, class, type or
 * const alias), or, for a call, when the overload the call resolves to does (so
 * `server.use(interceptor)` passes and `server.use(middleware)` does not). Only names
 * declared in `src/` count (another package's deprecations are that package's business).
 * Declarations themselves and re-exports (`export { ServerSession } from …`) are not uses.
 * An {@link ALLOWED} entry that no longer matches a use fails too, so the list only shrinks.
 * To stay quick, the checker is asked only about identifiers spelled like a deprecated
 * declaration of `src/` (collected from the syntax first).
 */

import assert from 'node:assert/strict';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO_ROOT } from '../helpers/repo.js';

/** `file` (relative, with /) uses `name` deliberately; `why` says so. */
interface Allowed {
  readonly file: string;
  readonly name: string;
  readonly why: string;
}

const ALLOWED: readonly Allowed[] = [
  { file: 'src/server/handlers.test.ts', name: 'setRequestHandler', why: 'proves the deprecated setter forwards to handle' },
  { file: 'src/server/handlers.test.ts', name: 'setSessionHandler', why: 'proves the deprecated setter forwards to handle' },
  { file: 'src/server/handlers.test.ts', name: 'wrapSessionHandler', why: 'proves the deprecated setter forwards to wrap' },
  { file: 'src/server/handlers.test.ts', name: 'setStatelessHandler', why: 'proves the deprecated setter forwards to handle' },
  { file: 'src/server/handlers.test.ts', name: 'statelessHandler', why: 'proves the deprecated reader reads the table' },
  { file: 'src/server/interceptors.test.ts', name: 'use', why: 'proves the once-per-connection middleware form still works' },
  { file: 'src/session/facts.test.ts', name: 'Session', why: 'proves Session is RpcChannel' },
  { file: 'src/server/aliases.test.ts', name: 'ServerSession', why: 'proves ServerSession is ServerConnection' },
  { file: 'src/server/aliases.test.ts', name: 'sessions', why: 'proves server.sessions is server.connections' },
  { file: 'src/server/aliases.test.ts', name: 'server', why: 'proves ctx.server is ctx.connection' },
  { file: 'src/server/aliases.test.ts', name: 'initializeStateless', why: 'proves initializeStateless forwards to initializeSessionless' },
];

const SRC = join(REPO_ROOT, 'src') + sep;

function isDeprecated(declaration: ts.Declaration): boolean {
  return ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'deprecated');
}

/** Whether `node` is declared in the library's sources (src/, tests included). */
function ownDeclaration(node: ts.Node): boolean {
  return node.getSourceFile().fileName.startsWith(SRC.split(sep).join('/'));
}

/** The deprecated declaration `id` uses, or undefined. */
function deprecatedUse(checker: ts.TypeChecker, id: ts.Identifier): ts.Declaration | undefined {
  const parent = id.parent;
  if ((ts.isExportSpecifier(parent) || ts.isImportSpecifier(parent) || ts.isImportClause(parent)) && parent.parent !== undefined) {
    // an import is a use only through the code that uses it (reported there); a re-export is the alias's surface
    return undefined;
  }
  // the name of a declaration (of a class, member, variable, parameter, object literal property) is no use
  if (!ts.isPropertyAccessExpression(parent) && (parent as { name?: ts.Node }).name === id) return undefined;
  let symbol = checker.getSymbolAtLocation(id);
  if (symbol === undefined) return undefined;
  if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declarations = symbol.declarations ?? [];
  if (declarations.length === 0 || !declarations.some(ownDeclaration)) return undefined;
  // a call resolves one overload: it decides (server.use(interceptor) vs server.use(middleware))
  const callee = ts.isPropertyAccessExpression(parent) && parent.name === id ? parent : id;
  const call = callee.parent;
  if (call !== undefined && (ts.isCallExpression(call) || ts.isNewExpression(call)) && call.expression === callee && declarations.length > 1) {
    const declaration = checker.getResolvedSignature(call)?.declaration;
    return declaration !== undefined && !ts.isJSDocSignature(declaration) && isDeprecated(declaration) ? declaration : undefined;
  }
  return declarations.every(isDeprecated) ? declarations[0] : undefined;
}

test("no code uses mcpkit's deprecated names, except the tests that prove they forward", () => {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(REPO_ROOT, 'tsconfig.test.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')) },
  );
  assert.ok(config !== undefined);
  const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, incremental: false, noEmit: true } });
  const checker = program.getTypeChecker();
  const files = program.getSourceFiles().filter((file) => !file.isDeclarationFile && !file.fileName.includes('/node_modules/'));
  // the names worth asking about: those of src/'s deprecated declarations
  const names = new Set<string>();
  for (const file of files) {
    if (!ownDeclaration(file)) continue;
    const collect = (node: ts.Node): void => {
      const name = (node as { name?: ts.Node }).name;
      if (name !== undefined && ts.isIdentifier(name) && isDeprecated(node as ts.Declaration)) names.add(name.text);
      ts.forEachChild(node, collect);
    };
    collect(file);
  }
  assert.ok(
    names.has('ServerSession') && names.has('setSessionHandler') && names.has('server'),
    `the deprecated declarations were not found (only ${[...names].join(', ')})`,
  );
  const found: string[] = [];
  const matched = new Set<Allowed>();
  for (const file of files) {
    const path = relative(REPO_ROOT, file.fileName).split(sep).join('/');
    const local = new Set<string>(); // import { ServerSession as Other }: Other is asked about too
    const visit = (node: ts.Node): void => {
      if (ts.isImportSpecifier(node) && node.propertyName !== undefined && names.has(node.propertyName.text)) local.add(node.name.text);
      if (ts.isIdentifier(node) && (names.has(node.text) || local.has(node.text))) {
        const declaration = deprecatedUse(checker, node);
        if (declaration !== undefined) {
          const allowed = ALLOWED.find((a) => a.file === path && a.name === node.text);
          if (allowed !== undefined) matched.add(allowed);
          else {
            const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
            found.push(`${path}:${line + 1}: ${node.text}`);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  assert.deepEqual(found, [], 'code uses deprecated mcpkit names: use the new ones (docs/migrating.md lists each deprecated name and its replacement)');
  const stale = ALLOWED.filter((a) => !matched.has(a)).map((a) => `${a.file}: ${a.name}`);
  assert.deepEqual(stale, [], 'allowed uses that no longer occur: remove them from ALLOWED');
});
