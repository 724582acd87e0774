import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsSkillRepository } from '../repository/fs-skill-repository.js';
import { renderCatalog } from './catalog.js';

// The four `to-prompt` cases of the reference validator (skills-ref tests/test_prompt.py), run on
// real skill folders. Where skillbox's XML deliberately differs, the case asserts the documented
// output (docs/progressive-disclosure.md, "XML and the reference validator").
let root: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'skillbox-catalog-xml-')));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeSkill(folder: string, name: string, description: string): Promise<string> {
  const directory = join(root, folder);
  await mkdir(directory, { recursive: true });
  await writeFile(
    join(directory, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n`,
  );
  return directory;
}

async function xmlCatalog(location?: 'path'): Promise<string> {
  const repository = await createFsSkillRepository({ roots: [root] });
  return renderCatalog({
    skills: await repository.list(),
    format: 'xml',
    guidance: false,
    ...(location === undefined ? {} : { location }),
  });
}

describe('renderCatalog XML against the reference to-prompt cases', () => {
  it('empty list: no catalog at all (the reference prints an empty <available_skills> block; the client guide says to omit it)', async () => {
    expect(await xmlCatalog()).toBe('');
    expect(renderCatalog({ skills: [], format: 'xml', guidance: false })).toBe('');
  });

  it('single skill: name and description each on their own lines, then the SKILL.md location', async () => {
    const directory = await writeSkill('my-skill', 'my-skill', 'A test skill');
    const text = await xmlCatalog('path');
    expect(text).toContain('<name>\nmy-skill\n</name>');
    expect(text).toContain('<description>\nA test skill\n</description>');
    expect(text).toBe(
      `<available_skills>\n<skill>\n<name>\nmy-skill\n</name>\n<description>\nA test skill\n</description>\n<location>\n${directory}/SKILL.md\n</location>\n</skill>\n</available_skills>`,
    );
  });

  it("by default gives the location as skill://NAME/SKILL.md, which the model's tools open, the same on every host", async () => {
    const directory = await writeSkill('my-skill', 'my-skill', 'A test skill');
    const text = await xmlCatalog();
    expect(text).toBe(
      '<available_skills>\n<skill>\n<name>\nmy-skill\n</name>\n<description>\nA test skill\n</description>\n<location>\nskill://my-skill/SKILL.md\n</location>\n</skill>\n</available_skills>',
    );
    expect(text).not.toContain(directory);
    expect(() => renderCatalog({ skills: [], location: 'host' as never })).toThrow(
      'renderCatalog: option "location" must be "skill-uri" or "path"; got "host"',
    );
  });

  it('two skills: two <skill> blocks, sorted by name (the reference keeps argument order)', async () => {
    await writeSkill('skill-b', 'skill-b', 'Second');
    await writeSkill('skill-a', 'skill-a', 'First');
    const text = await xmlCatalog();
    expect(text.match(/<skill>/g)).toHaveLength(2);
    expect(text.match(/<\/skill>/g)).toHaveLength(2);
    expect(text.indexOf('<name>\nskill-a\n</name>')).toBeLessThan(text.indexOf('<name>\nskill-b\n</name>'));
  });

  it('special characters: escaped as html.escape does (&, <, >, quotes)', async () => {
    await writeSkill('special-skill', 'special-skill', 'Use <foo> & <bar> tags');
    const text = await xmlCatalog();
    expect(text).toContain('&lt;foo&gt;');
    expect(text).toContain('&amp;');
    expect(text).not.toContain('<foo>');
    expect(text).toContain('<description>\nUse &lt;foo&gt; &amp; &lt;bar&gt; tags\n</description>');
    await writeSkill('quotes', 'quotes', `Say "hi" and it's done`);
    expect(await xmlCatalog()).toContain('<description>\nSay &quot;hi&quot; and it&#x27;s done\n</description>');
  });
});

describe('renderCatalog XML where skillbox deliberately differs from the reference', () => {
  it('escapes the location too, so the block stays well-formed XML for any folder name', async () => {
    const directory = await writeSkill('r&d', 'r-and-d', 'Research notes');
    expect(directory.endsWith('/r&d')).toBe(true);
    expect(await xmlCatalog('path')).toContain(`<location>\n${root}/r&amp;d/SKILL.md\n</location>`);
  });

  it('puts a multi-line description on one line, and leaves <location> out for skills defined in code', () => {
    expect(
      renderCatalog({
        skills: [{ name: 'calc', description: 'Adds numbers.\nAlso subtracts.' }],
        format: 'xml',
        guidance: false,
      }),
    ).toBe(
      '<available_skills>\n<skill>\n<name>\ncalc\n</name>\n<description>\nAdds numbers. Also subtracts.\n</description>\n</skill>\n</available_skills>',
    );
  });
});
