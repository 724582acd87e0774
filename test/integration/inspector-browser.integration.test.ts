// The inspector's page in a real browser: Debian's headless Chromium driven by playwright-core,
// against the example skills (plus one with hostile text) and a SQLite session recorded by the
// real agent with the scripted model. Each test asserts what a person sees; screenshots are kept
// under .artifacts/inspector/ and axe-core checks the pages for serious accessibility problems.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInspectorAssets } from '../../scripts/build-inspector.mjs';
import { type RunningInspector, startInspector } from '../../src/inspector/inspector-server.js';
import { createSkillAgent } from '../../src/integrations/ai-sdk/skill-agent.js';
import { createScriptedModel } from '../../src/integrations/ai-sdk/testing/scripted-model.js';
import { FsSkillRepository } from '../../src/repository/fs-skill-repository.js';
import { LocalRuntime } from '../../src/runtime/local-runtime.js';
import { availableSqliteDriver, openSqliteSessionStore } from '../../src/sessions/sqlite/index.js';
import { createWorkspaceManager } from '../../src/workspace/workspace-manager.js';
import { chromiumPath, hasChromium } from '../support/services.js';

const examples = fileURLToPath(new URL('../../examples/skills/', import.meta.url));
const artifacts = fileURLToPath(new URL('../../.artifacts/inspector/', import.meta.url));
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const runs = hasChromium && availableSqliteDriver() !== undefined;
const folder = mkdtempSync(join(tmpdir(), 'skillbox-inspector-page-'));
const databaseFile = join(folder, 'sessions.db');
const workspacesDir = join(folder, 'workspaces');
let browser: Browser;
let inspector: RunningInspector;

/** A session recorded as `skillbox chat` records one: the agent, the SQLite store, a scripted model. */
async function recordSession(repository: FsSkillRepository): Promise<void> {
  const sessions = await openSqliteSessionStore({ path: databaseFile });
  const { model } = createScriptedModel([
    { toolCalls: [{ name: 'skill_load', input: { skill: 'python-math' }, id: 'load-1' }] },
    {
      toolCalls: [
        {
          name: 'skill_run',
          input: { skill: 'python-math', command: 'python3 scripts/fib.py 6 > out/fib.txt; echo done' },
          id: 'run-1',
        },
      ],
    },
    { text: 'The first six Fibonacci numbers are in out/fib.txt.' },
  ]);
  // The local runtime: the page shows what a run left, wherever it ran.
  const workspaces = createWorkspaceManager({
    runtime: new LocalRuntime(),
    repository,
    baseDir: workspacesDir,
  });
  const agent = createSkillAgent({
    model,
    repository,
    sessions,
    workspaces,
    loadMode: 'session',
    instructions: 'Be brief.',
  });
  for await (const _ of agent.run({ userId: 'ada', sessionId: 'counting-words', message: 'Fibonacci, six of them?' }));
  await sessions.close();
  await workspaces.close();
}

/**
 * Two sessions with approvals, recorded by the agent: one whose skill_run a person allowed once, one
 * stopped at the AI SDK's approval request nobody has answered yet.
 */
async function recordApprovals(repository: FsSkillRepository): Promise<void> {
  const sessions = await openSqliteSessionStore({ path: databaseFile });
  const workspaces = createWorkspaceManager({
    runtime: new LocalRuntime(),
    repository,
    baseDir: join(folder, 'approval-workspaces'),
  });
  const steps = () =>
    createScriptedModel([
      { toolCalls: [{ name: 'skill_load', input: { skill: 'python-math' }, id: 'load-1' }] },
      {
        toolCalls: [
          { name: 'skill_run', input: { skill: 'python-math', command: 'python3 scripts/fib.py 3' }, id: 'run-1' },
        ],
      },
      { text: 'Done.' },
    ]).model;
  const options = {
    repository,
    sessions,
    workspaces,
    loadMode: 'session' as const,
  };
  const allowed = createSkillAgent({
    ...options,
    model: steps(),
    approval: { skills: ['python-math'], decide: () => 'allow-once' as const },
  });
  for await (const _ of allowed.run({ userId: 'ada', sessionId: 'approved', message: 'Three, please.' }));
  const asking = createSkillAgent({ ...options, model: steps(), approval: { skills: ['python-math'] } }).asAiSdkAgent();
  await asking.generate({
    messages: [{ role: 'user', content: 'Three, please.' }],
    options: { userId: 'ada', sessionId: 'waiting' },
  });
  await sessions.close();
  await workspaces.close();
}

/** python3's standard library writes a 4x4 red PNG (zlib and struct), and 16 bytes that are no image. */
const drawCommand = `python3 - <<'PY'
import struct, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
rows = b''.join(b'\\x00' + b'\\xff\\x00\\x00' * 4 for _ in range(4))
png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 4, 4, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')
open('out/dot.png', 'wb').write(png)
open('out/data.bin', 'wb').write(bytes(range(16)))
PY`;

/** A session whose run made a PNG and a binary file; its workspace is kept, as skillbox chat keeps it. */
async function recordDrawing(repository: FsSkillRepository): Promise<void> {
  const sessions = await openSqliteSessionStore({ path: databaseFile });
  const workspaces = createWorkspaceManager({ runtime: new LocalRuntime(), repository, baseDir: workspacesDir });
  const { model } = createScriptedModel([
    { toolCalls: [{ name: 'workspace_exec', input: { command: drawCommand }, id: 'draw-1' }] },
    { text: 'A red dot is in out/dot.png.' },
  ]);
  const agent = createSkillAgent({ model, repository, sessions, workspaces, instructions: 'Be brief.' });
  for await (const _ of agent.run({ userId: 'ada', sessionId: 'drawing', message: 'Draw me a dot.' }));
  await sessions.close();
  await workspaces.close({ keepWorkspaces: true });
}

/** A session whose skill_run saved its PNG as an artifact; its workspace is removed, the artifact stays. */
async function recordSavedDrawing(repository: FsSkillRepository): Promise<void> {
  const sessions = await openSqliteSessionStore({ path: databaseFile });
  const workspaces = createWorkspaceManager({ runtime: new LocalRuntime(), repository, baseDir: workspacesDir });
  const { model } = createScriptedModel([
    { toolCalls: [{ name: 'skill_load', input: { skill: 'python-math' }, id: 'load-1' }] },
    {
      toolCalls: [
        {
          name: 'skill_run',
          input: { skill: 'python-math', command: drawCommand, save_as_artifacts: true },
          id: 'draw-1',
        },
      ],
    },
    { text: 'Saved.' },
  ]);
  const agent = createSkillAgent({ model, repository, sessions, workspaces, instructions: 'Be brief.' });
  for await (const _ of agent.run({ userId: 'ada', sessionId: 'saved-drawing', message: 'Draw and keep it.' }));
  await sessions.close();
  await workspaces.close();
}

async function axeViolations(page: Page): Promise<Array<{ id: string; impact: string | null }>> {
  // Evaluated by the browser's debugging protocol, which the page's Content-Security-Policy does not
  // govern (a script tag would be refused by it, as any injected script must be).
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string | null }> }> } }
    ).axe;
    const result = await axe.run();
    return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact }));
  });
}

beforeAll(async () => {
  if (!runs) return;
  const root = join(folder, 'skills');
  cpSync(examples, root, { recursive: true });
  mkdirSync(join(root, 'hostile'));
  writeFileSync(
    join(root, 'hostile', 'SKILL.md'),
    '---\nname: hostile\ndescription: "<img src=x onerror=window.owned=1> and a bell \\u0007 here"\n---\nbody\n',
  );
  // Two skills that declare requirements: one the runtime has, one it cannot have.
  mkdirSync(join(root, 'needs-shell'));
  writeFileSync(
    join(root, 'needs-shell', 'SKILL.md'),
    '---\nname: needs-shell\ndescription: Runs shell scripts.\nmetadata:\n  requires:\n    bins: [sh]\n---\nbody\n',
  );
  mkdirSync(join(root, 'needs-missing'));
  writeFileSync(
    join(root, 'needs-missing', 'SKILL.md'),
    '---\nname: needs-missing\ndescription: Needs what no host has.\nmetadata:\n  requires:\n    bins: [sh, no-such-program-skillbox]\n    env: [SKILLBOX_INSPECT_KEY]\n---\nbody\n',
  );
  const repository = await FsSkillRepository.open({ roots: [root] });
  await recordSession(repository);
  await recordApprovals(repository);
  await recordDrawing(repository);
  await recordSavedDrawing(repository);
  const assets = join(folder, 'assets');
  await buildInspectorAssets(assets);
  const store = await openSqliteSessionStore({ path: databaseFile });
  // A session of the same user in another app: listed only when the page asks for that app.
  await store.createSession({ appName: 'other-app', userId: 'ada', sessionId: 'elsewhere' });
  await store.appendEvents(
    { appName: 'other-app', userId: 'ada', sessionId: 'elsewhere' },
    [{ author: 'user', type: 'message', content: { role: 'user', content: 'Hello from the other app' } }],
    { expectedVersion: 0 },
  );
  inspector = await startInspector({ repository, store, userId: 'ada', assetsDir: assets, workspacesDir });
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  mkdirSync(artifacts, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await inspector?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe.runIf(runs)('the inspector in a browser', () => {
  it('lists every skill with its model visibility and token costs, and shows hostile text as text', async () => {
    const page = await browser.newPage();
    await page.goto(inspector.url);
    const row = page.locator('tr[data-skill="python-math"]');
    await expect.poll(() => row.count(), { timeout: 20_000 }).toBe(1);
    expect(await row.locator('th').textContent()).toContain('python-math');
    expect(await row.locator('td').first().textContent()).toBe('visible');
    expect(await row.locator('td.source').textContent()).toBe(`folder ${join(folder, 'skills')}`);
    const catalogTokens = Number(await row.locator('.figure').textContent());
    expect(catalogTokens).toBeGreaterThan(5);
    // The description is markup-shaped text: shown as written, no element made from it.
    const hostile = page.locator('tr[data-skill="hostile"] .description');
    expect(await hostile.textContent()).toContain('<img src=x onerror=window.owned=1>');
    expect(await page.locator('tr[data-skill="hostile"] img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { owned?: unknown }).owned)).toBeUndefined();
    await page.screenshot({ path: join(artifacts, 'skills.png'), fullPage: true });
    const serious = (await axeViolations(page)).filter((violation) =>
      ['serious', 'critical'].includes(violation.impact ?? ''),
    );
    expect(serious).toEqual([]);
    await page.close();
  });

  it('says per skill whether its declared requirements are met where its commands run, and what is missing', async () => {
    const page = await browser.newPage();
    await page.goto(inspector.url);
    const met = page.locator('tr[data-skill="needs-shell"] td.requirements');
    await expect.poll(() => met.count(), { timeout: 20_000 }).toBe(1);
    expect(await met.textContent()).toBe('shmet');
    expect(await met.locator('[data-requirements]').getAttribute('data-requirements')).toBe('met');
    const missing = page.locator('tr[data-skill="needs-missing"] td.requirements');
    expect(await missing.locator('[data-requirements]').getAttribute('data-requirements')).toBe('missing');
    const lines = await missing.locator('li').allTextContents();
    expect(lines.join('\n')).toContain('no-such-program-skillbox');
    expect(lines.join('\n')).toContain('SKILLBOX_INSPECT_KEY');
    expect(lines.join('\n')).not.toMatch(/"sh"/);
    // A skill that declares nothing is not checked, and says so.
    expect(await page.locator('tr[data-skill="python-math"] td.requirements').textContent()).toBe('—');
    expect(await page.locator('p.totals').first().textContent()).toMatch(
      /Requirements checked in the (sandbox|local) runtime/,
    );
    await page.screenshot({ path: join(artifacts, 'requirements.png'), fullPage: true });
    await page.close();
  });

  it('shows the catalog as the model receives it, and shortens it under a budget typed in', async () => {
    const page = await browser.newPage();
    await page.goto(`${inspector.url}#/catalog`);
    const status = page.locator('p.totals[role="status"]');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/7 of 7 skills described\.$/);
    expect(await page.locator('pre.catalog').textContent()).toContain('python-math');
    await page.getByLabel('Token budget').fill('40');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toContain('shortened to fit');
    await page.screenshot({ path: join(artifacts, 'catalog.png'), fullPage: true });
    await page.close();
  });

  it('follows a session from the list to its timeline: the message, the load, the tool call and the answer', async () => {
    const before = statSync(databaseFile).mtimeMs;
    const page = await browser.newPage();
    await page.goto(`${inspector.url}#/sessions`);
    await page.getByRole('link', { name: 'counting-words' }).click();
    const items = page.locator('ol.timeline li');
    await expect.poll(() => items.count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
    const kinds = await items.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-kind')));
    expect(kinds).toEqual(expect.arrayContaining(['user', 'tool-call', 'load', 'tool-result', 'assistant']));
    expect(kinds.indexOf('user')).toBeLessThan(kinds.indexOf('tool-call'));
    expect(await page.locator('li[data-kind="load"] .title').first().textContent()).toBe('python-math');
    expect(await page.locator('li[data-kind="tool-call"] .title').first().textContent()).toBe('skill_load');
    await page.locator('li[data-kind="tool-call"] summary').first().click();
    expect(await page.locator('li[data-kind="tool-call"] pre').first().textContent()).toContain(
      '"skill": "python-math"',
    );
    expect(await page.getByText('Loading the inspector').count()).toBe(0);
    // The run: its command, exit status and output file with its text.
    const run = page.locator('li.run').first();
    expect(await run.locator('p code').textContent()).toBe('python3 scripts/fib.py 6 > out/fib.txt; echo done');
    expect(await run.getAttribute('data-exit')).toBe('0');
    expect(await run.locator('.outputs code').first().textContent()).toBe('out/fib.txt');
    expect(await run.locator('.output-content').first().textContent()).toMatch(/^0\s+1\s+1\s+2\s+3\s+5/);
    await page.screenshot({ path: join(artifacts, 'session.png'), fullPage: true });
    const serious = (await axeViolations(page)).filter((violation) =>
      ['serious', 'critical'].includes(violation.impact ?? ''),
    );
    expect(serious).toEqual([]);
    await page.close();
    // Reading the session wrote nothing to its store.
    expect(statSync(databaseFile).mtimeMs).toBe(before);
  });

  it('lists the sessions of another app and user typed in, and opens one of them', async () => {
    const page = await browser.newPage();
    await page.goto(`${inspector.url}#/sessions`);
    await expect.poll(() => page.getByRole('link', { name: 'counting-words' }).count(), { timeout: 20_000 }).toBe(1);
    expect(await page.getByRole('link', { name: 'elsewhere' }).count()).toBe(0);
    expect(await page.getByLabel('User').inputValue()).toBe('ada');
    expect(await page.getByLabel('App').inputValue()).toBe('default');
    await page.getByLabel('App').fill('other-app');
    await page.getByLabel('App').press('Enter');
    await expect.poll(() => page.getByRole('link', { name: 'elsewhere' }).count(), { timeout: 20_000 }).toBe(1);
    expect(await page.getByRole('link', { name: 'counting-words' }).count()).toBe(0);
    expect(await page.locator('#sessions-title').textContent()).toBe('Sessions of ada in other-app (1)');
    await page.getByRole('link', { name: 'elsewhere' }).click();
    await expect
      .poll(() => page.locator('li[data-kind="user"] .title').first().textContent(), { timeout: 20_000 })
      .toBe('Hello from the other app');
    await page.getByRole('link', { name: '← All sessions' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'elsewhere' }).count(), { timeout: 20_000 }).toBe(1);
    await page.close();
  });

  it('searches a timeline from the keyboard: only the entries holding the words stay, clearing brings all back', async () => {
    const page = await browser.newPage();
    await page.goto(`${inspector.url}#/sessions/counting-words`);
    const items = page.locator('ol.timeline li');
    await expect.poll(() => items.count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
    const all = await items.count();
    // The search box is the next stop after the way back to the list, and says what it is.
    await page.getByRole('link', { name: '← All sessions' }).focus();
    await page.keyboard.press('Tab');
    expect(await page.locator('#timeline-search').evaluate((node) => node === node.ownerDocument.activeElement)).toBe(
      true,
    );
    expect(await page.getByRole('searchbox', { name: 'Search the timeline' }).count()).toBe(1);
    await page.keyboard.type('FIB.PY');
    await expect.poll(() => items.count(), { timeout: 5_000 }).toBeLessThan(all);
    const kept = await items.evaluateAll((nodes) => nodes.map((node) => node.textContent ?? ''));
    expect(kept.length).toBeGreaterThan(0);
    for (const text of kept) expect(text.toLowerCase()).toContain('fib.py');
    expect(await page.locator('#timeline-matches').textContent()).toBe(`${kept.length} of ${all} entries match`);
    await page.keyboard.type('-no-such-words');
    await expect.poll(() => items.count(), { timeout: 5_000 }).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => items.count(), { timeout: 5_000 }).toBe(all);
    await page.screenshot({ path: join(artifacts, 'timeline-search.png'), fullPage: true });
    const serious = (await axeViolations(page)).filter((violation) =>
      ['serious', 'critical'].includes(violation.impact ?? ''),
    );
    expect(serious).toEqual([]);
    await page.close();
  });

  it('shows approvals asked and answered, each answer linked to its request, and a request still waiting', async () => {
    const page = await browser.newPage();
    await page.goto(`${inspector.url}#/sessions/approved`);
    const request = page.locator('li[data-kind="approval-request"]');
    await expect.poll(() => request.count(), { timeout: 20_000 }).toBe(1);
    expect(await request.locator('.title').textContent()).toBe(
      'skill_run of skill python-math: python3 scripts/fib.py 3',
    );
    await request.locator('summary').click();
    const asked = await request.locator('pre').textContent();
    expect(asked).toContain('why: skill python-math needs approval');
    expect(asked).toContain('"command": "python3 scripts/fib.py 3"');
    const answer = page.locator('li[data-kind="approval-decision"]');
    expect(await answer.locator('.title').textContent()).toBe('allow-once by a person');
    const status = request.locator('.approval-status');
    expect(await status.getAttribute('data-waiting')).toBe('false');
    expect(await status.textContent()).toMatch(/^answered in event \d+: allow-once by a person \(call run-1\)$/);
    const requestEvent = Number((await answer.locator('.approval-status').textContent())?.match(/event (\d+)/)?.[1]);
    expect(await answer.locator('.approval-status').getAttribute('data-approval')).toBe(
      await status.getAttribute('data-approval'),
    );
    // The answer points at the request's event, and the run it allowed follows.
    const timeline = await page
      .locator('ol.timeline li')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-kind')));
    expect(timeline.indexOf('approval-request')).toBeLessThan(timeline.indexOf('approval-decision'));
    expect(requestEvent).toBeGreaterThan(0);
    // From the answer to its request and back, from the keyboard: focus lands on the other entry.
    await answer.getByRole('button', { name: 'Go to its request' }).focus();
    await page.keyboard.press('Enter');
    expect(await request.evaluate((node) => node === node.ownerDocument.activeElement)).toBe(true);
    await request.getByRole('button', { name: 'Go to its answer' }).click();
    expect(await answer.evaluate((node) => node === node.ownerDocument.activeElement)).toBe(true);
    expect(await page.locator('li.run').first().getAttribute('data-exit')).toBe('0');
    await page.screenshot({ path: join(artifacts, 'approvals.png'), fullPage: true });
    const serious = (await axeViolations(page)).filter((violation) =>
      ['serious', 'critical'].includes(violation.impact ?? ''),
    );
    expect(serious).toEqual([]);

    await page.goto(`${inspector.url}#/sessions/waiting`);
    // Only the hash changes: wait until the page shows the other session, not the one before.
    await expect.poll(() => page.locator('#timeline-title').textContent(), { timeout: 20_000 }).toBe('Session waiting');
    const waiting = page.locator('li[data-kind="approval-request"] .approval-status');
    await expect.poll(() => waiting.count(), { timeout: 20_000 }).toBe(1);
    expect(await waiting.getAttribute('data-waiting')).toBe('true');
    expect(await waiting.textContent()).toBe('waiting for an answer (call run-1)');
    expect(await page.locator('li[data-kind="approval-decision"]').count()).toBe(0);
    expect(await page.locator('li[data-kind="approval-request"] button').count()).toBe(0);
    expect(await page.locator('li.run').count()).toBe(0);
    await page.screenshot({ path: join(artifacts, 'approval-waiting.png'), fullPage: true });
    await page.close();
  });

  it('renders the image a run made, and offers its other output for download', async () => {
    const page = await browser.newPage();
    await page.goto(`${inspector.url}#/sessions/drawing`);
    const image = page.locator('li.run img.output-image');
    await expect.poll(() => image.count(), { timeout: 20_000 }).toBe(1);
    expect(await image.getAttribute('alt')).toBe('out/dot.png, an image the run made');
    await expect
      .poll(
        () =>
          image.evaluate((node) => {
            // Loaded and decoded: a broken or refused image has naturalWidth 0.
            const loaded = node as unknown as { complete: boolean; naturalWidth: number };
            return loaded.complete ? loaded.naturalWidth : -1;
          }),
        { timeout: 20_000 },
      )
      .toBe(4);
    // The binary output is a link, not an image, and downloads as untyped bytes.
    const link = page.getByRole('link', { name: 'download out/data.bin' });
    expect(await link.getAttribute('download')).toBe('data.bin');
    const answer = await page.evaluate(
      async (href) => {
        const response = await fetch(href);
        return {
          status: response.status,
          type: response.headers.get('content-type'),
          disposition: response.headers.get('content-disposition'),
          bytes: [...new Uint8Array(await response.arrayBuffer())],
        };
      },
      (await link.getAttribute('href')) as string,
    );
    expect(answer).toEqual({
      status: 200,
      type: 'application/octet-stream',
      disposition: expect.stringMatching(/^attachment; filename="data.bin"/),
      bytes: [...Array(16).keys()],
    });
    expect(await page.locator('li.run img[alt^="out/data.bin"]').count()).toBe(0);
    await page.screenshot({ path: join(artifacts, 'run-image.png'), fullPage: true });
    const serious = (await axeViolations(page)).filter((violation) =>
      ['serious', 'critical'].includes(violation.impact ?? ''),
    );
    expect(serious).toEqual([]);
    await page.close();
  });

  it('renders an image a run saved as an artifact after its workspace is gone', async () => {
    const page = await browser.newPage();
    await page.goto(`${inspector.url}#/sessions/saved-drawing`);
    const image = page.locator('li.run .artifacts img.output-image[alt^="artifact out/dot.png"]');
    await expect.poll(() => image.count(), { timeout: 20_000 }).toBe(1);
    await expect
      .poll(
        () =>
          image.evaluate((node) => {
            const loaded = node as unknown as { complete: boolean; naturalWidth: number };
            return loaded.complete ? loaded.naturalWidth : -1;
          }),
        { timeout: 20_000 },
      )
      .toBe(4);
    expect(await page.locator('li.run .artifacts code').allTextContents()).toEqual([
      'artifact://out/data.bin@1',
      'artifact://out/dot.png@1',
    ]);
    // The workspace copy is gone with the workspace: the page says it is not shown, the artifact is.
    await expect.poll(() => page.locator('li.run .outputs .output-missing').count(), { timeout: 20_000 }).toBe(1);
    expect(await page.locator('li.run .outputs img').count()).toBe(0);
    await page.screenshot({ path: join(artifacts, 'run-artifact.png'), fullPage: true });
    await page.close();
  });

  it('follows a live session: an event appended while the page is open appears without a reload', async () => {
    const page = await browser.newPage();
    await page.goto(`${inspector.url}#/sessions/counting-words`);
    const items = page.locator('ol.timeline li');
    await expect.poll(() => items.count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
    const writer = await openSqliteSessionStore({ path: databaseFile });
    const session = await writer.getSession({ userId: 'ada', sessionId: 'counting-words' });
    await writer.appendEvents(
      { userId: 'ada', sessionId: 'counting-words' },
      [{ author: 'user', type: 'message', content: { role: 'user', content: 'And seven?' } }],
      { expectedVersion: session?.version ?? 0 },
    );
    await writer.close();
    await expect.poll(() => page.getByText('And seven?').count(), { timeout: 20_000 }).toBe(1);
    await page.close();
  });
});
