import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { isSkillboxError, SkillboxError, skillboxErrorCodes } from './errors.js';
import { SessionConflictError } from './sessions/session-errors.js';

const copies: string[] = [];
afterAll(() => {
  for (const folder of copies) rmSync(folder, { recursive: true, force: true });
});

/** A second, separately loaded copy of errors.ts: what a duplicate install of skillbox looks like. */
async function loadSecondCopy(): Promise<typeof import('./errors.js')> {
  const folder = mkdtempSync(join(tmpdir(), 'skillbox-second-copy-'));
  copies.push(folder);
  const source = readFileSync(new URL('./errors.ts', import.meta.url), 'utf8');
  const compiled = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  });
  const file = join(folder, 'errors.mjs');
  writeFileSync(file, compiled.outputText);
  return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as typeof import('./errors.js');
}

describe('isSkillboxError', () => {
  it('recognises a subclass and matches its code', () => {
    const error = new SessionConflictError({ userId: 'u', sessionId: 's' }, 1, 2);
    expect(isSkillboxError(error)).toBe(true);
    expect(isSkillboxError(error, 'SESSION_CONFLICT')).toBe(true);
    expect(isSkillboxError(error, 'SESSION_NOT_FOUND')).toBe(false);
  });

  it('refuses values that only look like one', () => {
    expect(isSkillboxError(new Error('plain'))).toBe(false);
    expect(
      isSkillboxError({ code: 'SESSION_CONFLICT', message: 'forged', name: 'SkillboxError' }, 'SESSION_CONFLICT'),
    ).toBe(false);
    expect(isSkillboxError(null)).toBe(false);
    expect(isSkillboxError('SESSION_CONFLICT')).toBe(false);
  });

  it('recognises an error thrown by another installed copy, which instanceof does not', async () => {
    const other = await loadSecondCopy();
    const foreign = new other.SkillboxError('SKILL_NOT_FOUND', 'skill "x" not found');
    expect(foreign instanceof SkillboxError).toBe(false);
    expect(isSkillboxError(foreign, 'SKILL_NOT_FOUND')).toBe(true);
    expect(
      other.isSkillboxError(new SessionConflictError({ userId: 'u', sessionId: 's' }, 1, 2), 'SESSION_CONFLICT'),
    ).toBe(true);
  });

  it('narrows the code for the caller', () => {
    const error: unknown = new SkillboxError('SANDBOX_UNAVAILABLE', 'no bubblewrap');
    if (!isSkillboxError(error, 'SANDBOX_UNAVAILABLE')) throw new Error('expected a skillbox error');
    const code: 'SANDBOX_UNAVAILABLE' = error.code;
    expect(code).toBe('SANDBOX_UNAVAILABLE');
  });
});

describe('skillboxErrorCodes', () => {
  it('lists each code once', () => {
    expect(new Set(skillboxErrorCodes).size).toBe(skillboxErrorCodes.length);
  });
});
