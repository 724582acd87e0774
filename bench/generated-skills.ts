// Generated skill libraries for the benchmarks that need more skills than the corpus holds.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Skill `index`'s name: zero-padded so the names sort as the numbers do. */
export function generatedName(index: number): string {
  return `skill-${String(index).padStart(7, '0')}`;
}

/** A description of the usual length (about 130 characters, 30 tokens). */
export function generatedDescription(index: number): string {
  return `Handles task number ${index}, reads the inputs, checks them and writes a short report. Use when asked about task ${index}.`;
}

/** Summaries of `count` skills, in memory (for catalog figures without a filesystem). */
export function generatedSummaries(count: number): { name: string; description: string; path: string }[] {
  return Array.from({ length: count }, (_, index) => ({
    name: generatedName(index),
    description: generatedDescription(index),
    path: `/skills/${generatedName(index)}`,
  }));
}

/** A folder of `count` skill folders (SKILL.md with a body, plus docs/guide.md), in a new temporary folder. */
export async function generateSkillTree(count: number, prefix = 'skillbox-bench-skills-'): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  await addGeneratedSkills(root, 0, count);
  return root;
}

/**
 * Adds skills `from` to `to - 1` (as `generateSkillTree` writes them) to `root`: a benchmark that
 * measures growing sizes grows one tree instead of writing each size from scratch.
 */
export async function addGeneratedSkills(root: string, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, to - start) }, async (_, offset) => {
        const name = generatedName(start + offset);
        const folder = join(root, name);
        await mkdir(join(folder, 'docs'), { recursive: true });
        await writeFile(
          join(folder, 'SKILL.md'),
          `---\nname: ${name}\ndescription: ${generatedDescription(start + offset)}\nlicense: MIT\n---\n# ${name}\n\n${'Step by step instructions for the task. '.repeat(20)}\n`,
        );
        await writeFile(join(folder, 'docs', 'guide.md'), `# Guide for ${name}\n`);
      }),
    );
  }
}
