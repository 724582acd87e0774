// Reads which files of src/ each source file imports, for the checks that keep the layering
// docs/architecture.md describes (check-import-cycles.mjs, check-layer-direction.mjs).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

export const repositoryRoot = new URL('..', import.meta.url).pathname;
export const sourceRoot = join(repositoryRoot, 'src');

/** Every .ts file under `folder` (tests included: they obey the same direction), without .d.ts. */
export function sourceFiles(folder = sourceRoot) {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** True when every binding of an import or export clause is type-only, so the statement is erased. */
function erased(statement) {
  if (ts.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    if (clause?.isTypeOnly) return true;
    const bindings = clause?.namedBindings;
    return Boolean(
      clause &&
        !clause.name &&
        bindings &&
        ts.isNamedImports(bindings) &&
        bindings.elements.length > 0 &&
        bindings.elements.every((element) => element.isTypeOnly),
    );
  }
  if (statement.isTypeOnly) return true;
  const clause = statement.exportClause;
  return Boolean(
    clause &&
      ts.isNamedExports(clause) &&
      clause.elements.length > 0 &&
      clause.elements.every((element) => element.isTypeOnly),
  );
}

/**
 * The relative imports and re-exports of `file`, resolved to .ts paths. `runtimeOnly` leaves out
 * statements erased at compile time (type-only ones); dynamic import() is never listed.
 */
export function relativeImports(file, { runtimeOnly }) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
  const targets = [];
  for (const statement of source.statements) {
    const isImport = ts.isImportDeclaration(statement);
    if (!isImport && !(ts.isExportDeclaration(statement) && statement.moduleSpecifier)) continue;
    if (runtimeOnly && erased(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    targets.push(resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts')));
  }
  return targets;
}
