import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SkillAgentEvent } from '../../src/integrations/ai-sdk/agent-events.js';
import { createSkillAgent } from '../../src/integrations/ai-sdk/skill-agent.js';
import { createScriptedModel } from '../../src/integrations/ai-sdk/testing/scripted-model.js';
import { createFsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { createMemorySessionStore } from '../../src/sessions/memory-session-store.js';
import type { SkillRunResult } from '../../src/workspace/tools/run-result.js';
import { workspaceSecurityFixture } from './workspace-fixture.js';

/**
 * Two runs of one session at once. One keeps swapping a workspace folder for a link to a host folder
 * (the link's target is a host path: it dangles inside the sandbox but means something to the host);
 * the other stages an input into that folder or collects an output through it. Before the fix the
 * host followed the link: it wrote a file of the script's choosing into the host folder and returned
 * a host file as an output.
 */
describe.runIf(process.platform === 'linux')('workspace security: concurrent runs of one session', () => {
  let fixture: Awaited<ReturnType<typeof workspaceSecurityFixture>>;
  let hostKeys: string;
  let hostSecrets: string;
  beforeAll(async () => {
    fixture = await workspaceSecurityFixture();
    hostKeys = path.join(fixture.root, 'host-home', '.ssh');
    hostSecrets = path.join(fixture.root, 'host-etc');
    await mkdir(hostKeys, { recursive: true });
    await mkdir(hostSecrets, { recursive: true });
    await writeFile(path.join(hostSecrets, 'shadow'), 'root:HOST-SHADOW-HASH:19000');
    // The payload is a file the script wrote, saved as an artifact: its content is the script's choice.
    const saved = await fixture.run({
      command: 'echo "ssh-ed25519 AAAA attacker" > out/authorized_keys',
      save_as_artifacts: true,
    });
    expect(saved.artifact_files?.map((file) => file.name)).toEqual(['out/authorized_keys']);
  });
  afterAll(async () => {
    await fixture.dispose();
  });

  /**
   * A perl loop (perl starts once, so a swap takes microseconds, not a process start) that keeps
   * exchanging `folder` (a real folder holding a decoy `shadow`) with a link to `hostTarget`, atomically
   * (renameat2 RENAME_EXCHANGE, x86-64 syscall 316), staying a random few milliseconds in each state.
   * The host's layout repair replaces the link with a folder now and then; the loop plants a new one.
   */
  const flipper = (folder: string, hostTarget: string, seconds: number) =>
    `perl -e '${perlFlipLoop}' '${folder}' '${hostTarget}' ${seconds}`;

  /** Runs the flipper in one call while `attempt` repeats in others; returns every attempt's outcome. */
  async function race(command: string, attempt: () => Promise<SkillRunResult>): Promise<Array<SkillRunResult | Error>> {
    let flipping = true;
    const flip = fixture.exec({ command: `${command}; true`, timeout: 60, output_files: [] }).finally(() => {
      flipping = false;
    });
    const outcomes: Array<SkillRunResult | Error> = [];
    // Give the flipper a head start, then attack for as long as it flips (at least once).
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Three attackers at once: more tries per second of flipping.
    const attacker = async () => {
      do outcomes.push(await attempt().catch((error: Error) => error));
      while (flipping);
    };
    await Promise.all([attacker(), attacker(), attacker()]);
    await flip;
    return outcomes;
  }

  it('never writes an input through a folder the other run swaps for a link', async () => {
    const outcomes = await race(flipper('work/inputs', hostKeys, 8), () =>
      fixture.run({
        command: 'true',
        output_files: [],
        inputs: [{ from: 'artifact://out/authorized_keys', to: 'inputs/authorized_keys' }],
      }),
    );
    expect(outcomes.length).toBeGreaterThan(0);
    expect(await readdir(hostKeys)).toEqual([]);
  }, 120_000);

  it('never returns a host file through a folder the other run swaps for a link', async () => {
    const outcomes = await race(flipper('out/d', hostSecrets, 8), () =>
      fixture.run({ command: 'true', output_files: ['out/d/shadow', 'out/d/*'] }),
    );
    expect(outcomes.length).toBeGreaterThan(0);
    expect(
      JSON.stringify(outcomes.map((outcome) => (outcome instanceof Error ? outcome.message : outcome))),
    ).not.toContain('HOST-SHADOW-HASH');
  }, 120_000);

  it('a process the run left behind does not outlive it to race the next run (sandbox runtime)', async () => {
    const flipper = `while :; do rm -rf work/inputs; ln -sfn '${hostKeys}' work/inputs; done`;
    await fixture.exec({
      command: `(setsid nohup bash -c "${flipper}" >/dev/null 2>&1 &) ; sleep 0.2; true`,
      output_files: [],
    });
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline) {
      await fixture
        .run({
          command: 'true',
          output_files: [],
          inputs: [{ from: 'artifact://out/authorized_keys', to: 'inputs/authorized_keys' }],
        })
        .catch(() => undefined);
    }
    expect(await readdir(hostKeys)).toEqual([]);
    expect(await readFile(path.join(hostSecrets, 'shadow'), 'utf8')).toBe('root:HOST-SHADOW-HASH:19000');
  }, 60_000);

  it("host-side staging and collection hold on their own while a process outside any turn swaps folders (as a local runtime's orphan could)", async () => {
    const workspace = await fixture.workspaces.workspace('orphaned');
    await writeFile(path.join(workspace.root, 'work', 'payload'), 'ssh-ed25519 AAAA attacker');
    const loops = [
      spawn('perl', ['-e', perlFlipLoop, 'work/inputs', hostKeys, '6'], { cwd: workspace.root, stdio: 'ignore' }),
      spawn('perl', ['-e', perlFlipLoop, 'out/d', hostSecrets, '6'], { cwd: workspace.root, stdio: 'ignore' }),
    ];
    try {
      const deadline = Date.now() + 4000;
      const returned: string[] = [];
      while (Date.now() < deadline) {
        await workspace
          .stageInputs([{ from: 'workspace://work/payload', to: 'inputs/authorized_keys' }], { hostAccess: false })
          .catch(() => undefined);
        const collected = await workspace.collect(['out/d/shadow', 'out/d/*']).catch(() => undefined);
        for (const file of collected?.files ?? []) returned.push(file.data.toString('utf8'));
      }
      expect(await readdir(hostKeys)).toEqual([]);
      expect(returned.join('\n')).not.toContain('HOST-SHADOW-HASH');
    } finally {
      for (const loop of loops) loop.kill('SIGKILL');
    }
  }, 60_000);
  it('two concurrent agent turns of one session (createSkillAgent) cannot race either', async () => {
    const repository = await createFsSkillRepository({ roots: [path.join(fixture.root, 'skills')] });
    const sessions = createMemorySessionStore();
    const turn = { userId: 'mallory', sessionId: 'shared' };
    const flipping = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'probe' }, id: 'load' }] },
      {
        toolCalls: [
          {
            name: 'workspace_exec',
            input: {
              command: `perl -e '${perlFlipLoop}' out/d '${hostSecrets}' 8 & perl -e '${perlFlipLoop}' work/inputs '${hostKeys}' 8 & wait`,
              timeout: 60,
              output_files: [],
            },
            id: 'flip',
          },
        ],
      },
      { text: 'flipped' },
    ]);
    const attack = {
      name: 'skill_run',
      input: {
        skill: 'probe',
        command: 'true',
        output_files: ['out/d/shadow', 'out/d/*'],
        inputs: [{ from: 'skill://probe/scripts/probe.sh', to: 'inputs/authorized_keys' }],
      },
    };
    const attacking = createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'probe' }, id: 'load' }] },
      ...Array.from({ length: 10 }, (_, step) => ({
        toolCalls: [0, 1, 2].map((index) => ({ ...attack, id: `attack-${step}-${index}` })),
      })),
      { text: 'done' },
    ]);
    const agent = (model: typeof flipping.model) =>
      createSkillAgent({ model, repository, workspaces: fixture.workspaces, sessions, maxSteps: 30 });
    const collect = async (events: AsyncIterable<SkillAgentEvent>) => {
      const all: SkillAgentEvent[] = [];
      for await (const event of events) all.push(event);
      return all;
    };
    const first = collect(agent(flipping.model).run({ ...turn, message: 'flip' }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const second = await collect(agent(attacking.model).run({ ...turn, message: 'attack' }));
    await first;
    expect(second.filter((event) => event.type === 'tool-result')).toHaveLength(31);
    expect(JSON.stringify(second)).not.toContain('HOST-SHADOW-HASH');
    expect(await readdir(hostKeys)).toEqual([]);
  }, 180_000);
});

/** The flipper of `flipper()`, as a perl program taking folder, host target and seconds. */
const perlFlipLoop =
  'my ($d, $h, $s) = @ARGV; my $end = time + $s; mkdir $d; open(my $f, ">", "$d/shadow"); print $f "decoy"; close $f; symlink $h, "$d.link"; ' +
  'my $n = 0; while (time < $end) { unless (-l $d || -l "$d.link") { rename "$d.link", "$d.gone" . $n++; symlink $h, "$d.link"; } ' +
  'syscall(316, -100, $d, -100, "$d.link", 2); select(undef, undef, undef, rand(0.004)); syscall(316, -100, $d, -100, "$d.link", 2); select(undef, undef, undef, rand(0.004)); }';
