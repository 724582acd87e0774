import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSkillAgent, type SkillAgentEvent } from '../../src/integrations/ai-sdk/index.js';
import { createScriptedModel } from '../../src/integrations/ai-sdk/testing/scripted-model.js';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';

// A scripted conversation through the AI SDK runner: the model unpacks a .docx with the skill's own
// script, edits word/document.xml with workspace_edit (no heredoc, no sed), and packs it back with
// the skill's script. The runtime is the sandbox where it runs (else the local one); the files are real.

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'skillbox-docx-edit-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A minimal .docx: the content types, and a body with one paragraph saying "Draft". */
async function writeDocx(file: string): Promise<void> {
  const parts = join(scratch, 'parts');
  await mkdir(join(parts, 'word'), { recursive: true });
  await writeFile(
    join(parts, '[Content_Types].xml'),
    '<?xml version="1.0" encoding="UTF-8"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>\n',
  );
  await writeFile(
    join(parts, 'word', 'document.xml'),
    '<?xml version="1.0" encoding="UTF-8"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">\n  <w:body>\n    <w:p><w:r><w:t>Status: Draft</w:t></w:r></w:p>\n  </w:body>\n</w:document>\n',
  );
  execFileSync('zip', ['-q', '-r', file, '[Content_Types].xml', 'word'], { cwd: parts });
}

describe('editing a docx skill XML with the file tools', () => {
  it('unpacks with the skill script, edits with workspace_edit, packs with the skill script', async () => {
    const docx = join(scratch, 'report.docx');
    await writeDocx(docx);
    const repository = await createFsSkillRepository({ roots: [fixtures] });
    const workspaces = createWorkspaceManager({
      runtime: createRuntime({ kind: 'auto' }),
      repository,
      baseDir: join(scratch, 'ws'),
    });
    const edit = {
      path: 'work/report/word/document.xml',
      old_string: '<w:t>Status: Draft</w:t>',
      new_string: '<w:t>Status: Final</w:t>',
    };
    const { model, calls } = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'docx-xml' }, id: 'load' }] },
      {
        toolCalls: [
          {
            name: 'skill_run',
            id: 'unpack',
            input: {
              skill: 'docx-xml',
              command: 'python3 scripts/unpack.py $WORK_DIR/inputs/report.docx $WORK_DIR/report',
              inputs: [{ from: `host://${docx}` }],
              output_files: [],
            },
          },
        ],
      },
      { toolCalls: [{ name: 'workspace_read', input: { path: 'work/report/word/document.xml' }, id: 'read' }] },
      { toolCalls: [{ name: 'workspace_edit', input: edit, id: 'edit' }] },
      {
        toolCalls: [
          {
            name: 'skill_run',
            id: 'pack',
            input: {
              skill: 'docx-xml',
              command: 'python3 scripts/pack.py $WORK_DIR/report $OUTPUT_DIR/report.docx',
              output_files: ['out/report.docx'],
            },
          },
        ],
      },
      { text: 'The report now says Final: out/report.docx.' },
    ]);
    const agent = createSkillAgent({
      model,
      repository,
      workspaces,
      execution: { hostInputs: [scratch], fileTools: true },
      instructions: 'You edit documents.',
    });
    const events: SkillAgentEvent[] = [];
    for await (const event of agent.run({ userId: 'editor', sessionId: 'docx', message: 'Mark the report final.' }))
      events.push(event);

    expect(events.at(-1)).toMatchObject({ type: 'done', text: 'The report now says Final: out/report.docx.' });
    expect(calls[0]?.tools?.map((tool) => tool.name)).toEqual(
      expect.arrayContaining([
        'workspace_read',
        'workspace_edit',
        'workspace_write',
        'workspace_list',
        'workspace_glob',
        'workspace_grep',
      ]),
    );
    // What the model saw of its read and its edit.
    const toolResult = (call: number) => JSON.stringify(calls[call]?.prompt.at(-1));
    expect(toolResult(3)).toContain('     4\\t    <w:p><w:r><w:t>Status: Draft</w:t></w:r></w:p>');
    expect(toolResult(4)).toContain('"replacements":1');
    expect(toolResult(5)).toContain('"exit_code":0');

    const workspace = await workspaces.workspace({ userId: 'editor', sessionId: 'docx' });
    const packed = execFileSync(
      'python3',
      [
        '-c',
        'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.namelist()[0]); print(z.read("word/document.xml").decode())',
        join(workspace.root, 'out', 'report.docx'),
      ],
      { encoding: 'utf8' },
    );
    expect(packed.split('\n')[0]).toBe('[Content_Types].xml');
    expect(packed).toContain('<w:t>Status: Final</w:t>');
    // The skill's own copy and source were never written.
    expect(await readFile(join(fixtures, 'docx-xml', 'SKILL.md'), 'utf8')).toContain('name: docx-xml');
  });
});
