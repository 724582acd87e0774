/**
 * Every SKILL.md of the shared corpus (636 real skills, ../shared/corpus) through the lenient
 * parser and the strict validator. The counts are what these collections really hold; a change in
 * them means the parser's behaviour changed.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusRoot, hasCorpus } from '../../test/support/corpus.js';
import { SkillParseError } from './errors.js';
import { parseSkillMarkdown } from './parse-skill.js';
import { validateSkillText } from './validate-skill-text.js';

const corpus = corpusRoot;

async function skillFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && (entry.name === 'SKILL.md' || entry.name === 'skill.md'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

interface CollectionCounts {
  files: number;
  parsed: number;
  skipped: number;
  loadedWithWarnings: number;
  strictlyValid: number;
}

// loadedWithWarnings leaves out skills whose only warning would be a Claude Code field skillbox
// knows (disable-model-invocation, argument-hint, model, user-invocable): 24 of mattpocock's and 12
// of awesome-copilot's carry one, and lenient loading does not call them unexpected.
const expected: Record<string, CollectionCounts> = {
  'K-Dense-AI__claude-scientific-skills': {
    files: 134,
    parsed: 134,
    skipped: 0,
    loadedWithWarnings: 2,
    strictlyValid: 131,
  },
  anthropics__skills: { files: 14, parsed: 14, skipped: 0, loadedWithWarnings: 2, strictlyValid: 12 },
  'github__awesome-copilot': { files: 419, parsed: 419, skipped: 0, loadedWithWarnings: 18, strictlyValid: 388 },
  mattpocock__skills: { files: 41, parsed: 41, skipped: 0, loadedWithWarnings: 0, strictlyValid: 17 },
  obra__superpowers: { files: 14, parsed: 14, skipped: 0, loadedWithWarnings: 0, strictlyValid: 14 },
  vercel__ai: { files: 14, parsed: 14, skipped: 0, loadedWithWarnings: 1, strictlyValid: 13 },
};

describe.runIf(hasCorpus)('the corpus', () => {
  it('parses or skips with a reason every SKILL.md, per collection, and never crashes', async () => {
    const collections = (await readdir(corpus, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const counts: Record<string, CollectionCounts> = {};
    const skipReasons: string[] = [];
    for (const collection of collections) {
      const tally: CollectionCounts = { files: 0, parsed: 0, skipped: 0, loadedWithWarnings: 0, strictlyValid: 0 };
      for (const file of await skillFiles(join(corpus, collection))) {
        tally.files += 1;
        const bytes = await readFile(file);
        const folderName = basename(dirname(file));
        try {
          const skill = parseSkillMarkdown(bytes, { file, folderName });
          tally.parsed += 1;
          if (skill.warnings.length > 0) tally.loadedWithWarnings += 1;
          expect(skill.description).not.toBe('');
        } catch (error) {
          // Anything but a SkillParseError is a crash and fails the test.
          if (!(error instanceof SkillParseError)) throw error;
          tally.skipped += 1;
          skipReasons.push(error.message);
        }
        if (validateSkillText(bytes, { folderName, file }).valid) tally.strictlyValid += 1;
      }
      counts[collection] = tally;
    }
    expect(skipReasons).toEqual([]);
    expect(counts).toEqual(expected);
  });

  it('reads the strict failures the corpus is known for: extra fields, flow lists, long descriptions', async () => {
    const claudeApi = join(corpus, 'anthropics__skills/skills/claude-api/SKILL.md');
    const strict = validateSkillText(await readFile(claudeApi), { folderName: 'claude-api' });
    expect(strict.errors).toEqual(['Description exceeds 1024 character limit (1068 chars)']);
    const lenient = parseSkillMarkdown(await readFile(claudeApi), { folderName: 'claude-api' });
    expect(lenient.warnings).toEqual(['Description exceeds 1024 character limit (1068 chars)']);
  });
});
