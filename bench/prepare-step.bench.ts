// What one model step pays for the skill library: the AI SDK prepareStep (catalog, loaded skills,
// active tools) on libraries of 100 to 50,000 skills on disk, with no budget and with an 8,000-token
// catalog budget. The figure that matters is a step at N skills over a step at 100 skills (the goal
// is the same cost at any size); with --baseline=<ref>, the same steps on that commit's code run
// interleaved with these. Figures only.
import { rm } from 'node:fs/promises';
import type { LanguageModel, ModelMessage } from 'ai';
import { createSkillCallContext } from '../src/integrations/ai-sdk/skill-call-context.js';
import { createSkillPrepareStep } from '../src/integrations/ai-sdk/skill-prepare-step.js';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import { createInMemoryStateView } from '../src/state/in-memory-state-view.js';
import {
  baselineLabel,
  formatSpread,
  importBaseline,
  interleavedTimes,
  pairedRatio,
  quick,
  reportRatio,
  spreadOf,
} from './bench-support.js';
import { addGeneratedSkills, generateSkillTree } from './generated-skills.js';

type PrepareStepModule = typeof import('../src/integrations/ai-sdk/skill-prepare-step.js');
type RepositoryModule = typeof import('../src/repository/fs-skill-repository.js');
type CallContextModule = typeof import('../src/integrations/ai-sdk/skill-call-context.js');
type StateViewModule = typeof import('../src/state/in-memory-state-view.js');

const sizes = quick ? [100, 1_000, 5_000] : [100, 1_000, 10_000, 50_000];
const budgets = [undefined, { tokens: 8_000 }] as const;
const skillToolNames = ['skill_load', 'skill_select_docs', 'skill_run'];
const messages: ModelMessage[] = [{ role: 'user', content: 'Summarise task 42.' }];
const model = {} as LanguageModel;

interface Implementation {
  prepareStep: PrepareStepModule;
  repository: RepositoryModule;
  callContext: CallContextModule;
  stateView: StateViewModule;
}

type Repository = Awaited<ReturnType<RepositoryModule['FsSkillRepository']['open']>>;

/**
 * One step (not the first: no turn reset) of a fresh agent over `repository`, as a repeatable call.
 * The repository is opened once per size and shared by both budgets, as one host's agents share
 * it: opening it is a cold listing of the whole tree, which the step does not pay.
 */
async function stepOf(
  implementation: Implementation,
  repository: Repository,
  budget: (typeof budgets)[number],
): Promise<() => Promise<unknown>> {
  const prepareStep = implementation.prepareStep.createSkillPrepareStep({
    repository,
    skillToolNames,
    instructions: 'You are terse.',
    ...(budget === undefined ? {} : { catalog: { budget } }),
  });
  const context = implementation.callContext.createSkillCallContext({
    sessionId: 'bench',
    state: implementation.stateView.createInMemoryStateView({}),
  });
  // ai 6's field name: prepareStep reads it on ai 7 too, and the baseline (older code) knows only it.
  const input = { stepNumber: 1, messages, steps: [], model, experimental_context: context };
  return async () => prepareStep(input as never);
}

export async function run(): Promise<void> {
  const current: Implementation = {
    prepareStep: { createSkillPrepareStep } as PrepareStepModule,
    repository: { FsSkillRepository } as RepositoryModule,
    callContext: { createSkillCallContext } as CallContextModule,
    stateView: { createInMemoryStateView } as StateViewModule,
  };
  const label = baselineLabel();
  const baseline: Implementation | undefined =
    label === undefined
      ? undefined
      : {
          prepareStep: (await importBaseline<PrepareStepModule>('integrations/ai-sdk/skill-prepare-step.ts'))!,
          repository: (await importBaseline<RepositoryModule>('repository/fs-skill-repository.ts'))!,
          callContext: (await importBaseline<CallContextModule>('integrations/ai-sdk/skill-call-context.ts'))!,
          // The file moved to state/ with the state module; an older baseline has it under tools/.
          stateView: (await importBaseline<StateViewModule>('state/in-memory-state-view.ts').catch(() =>
            importBaseline<StateViewModule>('tools/in-memory-state-view.ts'),
          ))!,
        };
  console.log(
    `one prepareStep call (step 2 of a turn) over N skills on disk; medians [middle half] of interleaved runs${baseline ? `; ${label} runs interleaved` : ''}`,
  );
  console.log(
    'skills | budget | step ms | step / step at 100 skills' +
      (baseline ? ` | ${label} ms | ${label} / step at 100 | this / ${label}` : ''),
  );
  const smallest = new Map<string, number[]>();
  const smallestBaseline = new Map<string, number[]>();
  // One tree grown from size to size: writing each size from scratch rewrote the smaller ones.
  const root = await generateSkillTree(0, 'skillbox-bench-prepare-step-');
  let written = 0;
  try {
    for (const size of sizes) {
      await addGeneratedSkills(root, written, size);
      written = size;
      const currentRepository = await current.repository.FsSkillRepository.open({ roots: [root] });
      const baselineRepository = await baseline?.repository.FsSkillRepository.open({ roots: [root] });
      for (const budget of budgets) {
        const budgetLabel = budget === undefined ? 'none' : `${budget.tokens} tokens`;
        const tasks: Record<string, () => Promise<unknown>> = {
          current: await stepOf(current, currentRepository, budget),
        };
        if (baseline && baselineRepository) tasks.baseline = await stepOf(baseline, baselineRepository, budget);
        // The old code's budgeted step took seconds at 50,000 skills: fewer rounds there.
        const runs = baseline && size >= 10_000 ? 3 : quick ? 15 : 25;
        // The first size is every later size's base: timed before the JIT compiled the step, it read
        // ten times slower than the same step later, and every "at N / at 100" row came out 0.05-0.2.
        const times = await interleavedTimes(tasks, runs, size === sizes[0] ? 30 : 1);
        if (size === sizes[0]) {
          smallest.set(budgetLabel, times.current!);
          if (times.baseline) smallestBaseline.set(budgetLabel, times.baseline);
        }
        const bySize = (values: number[], base: number[] | undefined) =>
          base === undefined ? 'n/a' : `${(spreadOf(values).median / spreadOf(base).median).toFixed(2)}x`;
        const growth = bySize(times.current!, smallest.get(budgetLabel));
        const cells = [
          String(size).padStart(6),
          budgetLabel.padEnd(12),
          formatSpread(spreadOf(times.current!), 3),
          growth,
        ];
        if (times.baseline) {
          cells.push(
            formatSpread(spreadOf(times.baseline), 1),
            bySize(times.baseline, smallestBaseline.get(budgetLabel)),
            formatSpread(pairedRatio(times.current!, times.baseline), 4),
          );
          reportRatio({
            benchmark: 'prepare step',
            comparison: `${size} skills, budget ${budgetLabel}: this / ${label}`,
            ratio: pairedRatio(times.current!, times.baseline),
            goal: '< 1',
          });
        }
        console.log(cells.join(' | '));
        if (size !== sizes[0]) {
          const base = smallest.get(budgetLabel)!;
          const samples = times.current!.map((value) => value / spreadOf(base).median);
          reportRatio({
            benchmark: 'prepare step',
            comparison: `step at ${size} / at ${sizes[0]} skills, budget ${budgetLabel}`,
            ratio: spreadOf(samples),
            goal: '~1 (same at any size)',
          });
        }
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
