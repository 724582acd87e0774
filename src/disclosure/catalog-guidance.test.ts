import { describe, expect, it } from 'vitest';
import { disclosureToolNames, executionToolNames, type SkillToolName } from '../tools/tool-names.js';
import { renderCatalogGuidance } from './catalog-guidance.js';

const allTools: readonly SkillToolName[] = [...disclosureToolNames, ...executionToolNames];

// A tool the guidance never names must be a decision, not an oversight: `skill_list` returns the
// catalog the model is already reading, so pointing at it would only cost tokens.
const notNamed: readonly SkillToolName[] = ['skill_list'];

describe('renderCatalogGuidance', () => {
  it('names every skillbox tool when all of them are registered, so a new tool is not left unexplained', () => {
    const guidance = renderCatalogGuidance(allTools);
    const unnamed = allTools.filter((name) => !notNamed.includes(name) && !guidance.includes(name));
    expect(unnamed).toEqual([]);
  });

  it('names no tool the model does not have, for any one tool left out of the full set or registered alone', () => {
    const sets = allTools.flatMap((tool) => [[tool], allTools.filter((name) => name !== tool)]);
    for (const registered of sets) {
      const guidance = renderCatalogGuidance(registered);
      const named = allTools.filter((name) => new RegExp(`\\b${name}\\b`).test(guidance));
      expect({ registered, extra: named.filter((name) => !registered.includes(name)) }).toEqual({
        registered,
        extra: [],
      });
    }
  });

  it('keeps the text of the full set as it was, so the prompt prefix stays byte-stable for prompt caches', () => {
    const guidance = renderCatalogGuidance(allTools);
    expect(guidance).toContain(
      '- A loaded skill may bring tools: skill_list_tools names them and skill_select_tools keeps only those the task needs.',
    );
    expect(guidance).toContain(
      '- For servers, watchers and interactive programs, workspace_exec with background: true returns a process_id; workspace_poll reads its new output, workspace_write_stdin answers its prompts, workspace_kill ends it.',
    );
  });

  it('says no tool opens a skill, and none runs commands, when the model has neither', () => {
    const guidance = renderCatalogGuidance([]);
    expect(guidance).toContain('no tool in this session opens a skill');
    expect(guidance).toContain('No tool here runs commands');
  });
});
