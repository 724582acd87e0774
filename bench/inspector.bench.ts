// The inspector's page in Debian's headless Chromium (playwright-core), as a person opens it: time
// to first paint and to a usable page for a library of generated skills (every row of the skills
// table drawn) and for a long SQLite session (every timeline entry drawn and the search box there),
// in the same browser run; and the page's weight: app.js, app.css and the JSON of each API call,
// in bytes. Each page load is a fresh page; the server and its data stay. Figures only.
//   INSPECTOR_BENCH_SKILLS (default 1000, quick 100), INSPECTOR_BENCH_EVENTS (default 200, quick 40),
//   INSPECTOR_BENCH_ROUNDS (default 7, quick 2)
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { buildInspectorAssets } from '../scripts/build-inspector.mjs';
import { startInspector } from '../src/inspector/inspector-server.js';
import { FsSkillRepository } from '../src/repository/fs-skill-repository.js';
import type { NewSessionEvent } from '../src/sessions/session-store.js';
import { availableSqliteDriver, openSqliteSessionStore } from '../src/sessions/sqlite/index.js';
import { formatSpread, quick, spreadOf } from './bench-support.js';
import { generatedName, generateSkillTree } from './generated-skills.js';

const chromiumPath = process.env.SKILLBOX_TEST_CHROMIUM ?? '/usr/bin/chromium';
const skillCount = Number(process.env.INSPECTOR_BENCH_SKILLS ?? (quick ? 100 : 1000));
const eventCount = Number(process.env.INSPECTOR_BENCH_EVENTS ?? (quick ? 40 : 200));
const rounds = Number(process.env.INSPECTOR_BENCH_ROUNDS ?? (quick ? 2 : 7));
const user = 'bench';
const sessionId = 'long-session';

/**
 * Event `index` of a session as an agent records one, cycling through what a timeline shows: the
 * user's message, a skill_load call with its state change, a skill_run call and its result, the
 * model's answer.
 */
function sessionEvent(index: number): NewSessionEvent {
  const skill = generatedName(index % skillCount);
  const call = `call-${index}`;
  switch (index % 4) {
    case 0:
      return {
        author: 'user',
        type: 'message',
        content: { role: 'user', content: `Question ${index}: run task ${index}.` },
      };
    case 1:
      return {
        author: 'assistant',
        type: 'message',
        content: {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: call, toolName: 'skill_load', input: { skill } }],
        },
        stateDelta: { [`temp:skill:loaded_by_agent:agent/${skill}`]: '1' },
      };
    case 2:
      return {
        author: 'assistant',
        type: 'message',
        content: {
          role: 'assistant',
          content: [
            {
              type: 'tool-call',
              toolCallId: call,
              toolName: 'skill_run',
              input: { skill, command: `python3 run.py ${index}` },
            },
          ],
        },
      };
    default:
      return {
        author: 'tool',
        type: 'message',
        content: {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: `call-${index - 1}`,
              toolName: 'skill_run',
              output: {
                type: 'json',
                value: {
                  exit_code: 0,
                  duration_ms: 120,
                  stdout: `result of task ${index}\n`.repeat(5),
                  output_files: [],
                },
              },
            },
          ],
        },
      };
  }
}

/** A page is ready when `count` elements match `items` and `also` matches one. */
interface Readiness {
  items: string;
  count: number;
  also: string;
}

/** The page's document, as far as the readiness check uses it (the bench is type-checked without the DOM library). */
type PageDocument = {
  querySelectorAll(selector: string): { length: number };
  querySelector(selector: string): unknown;
};

/** Milliseconds from the navigation's start: first paint, and the moment the page was first ready. */
async function openPage(
  browser: Browser,
  url: string,
  ready: Readiness,
): Promise<{ firstPaint: number; ready: number }> {
  const page = await browser.newPage();
  try {
    await page.goto(url, { waitUntil: 'commit' });
    // Polled on each animation frame inside the page, so the time is the page's own, not a round trip's.
    // A function, not a string: the page's Content-Security-Policy forbids eval, and a string is evaluated that way.
    const readyAt = await page.waitForFunction(
      ({ items, count, also }) => {
        const document = (globalThis as unknown as { document: PageDocument }).document;
        return document.querySelectorAll(items).length === count && document.querySelector(also) !== null
          ? performance.now()
          : false;
      },
      ready,
      { polling: 'raf', timeout: 120_000 },
    );
    const firstPaint = await page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
    );
    return { firstPaint, ready: (await readyAt.jsonValue()) as number };
  } finally {
    await page.close();
  }
}

export async function run(): Promise<void> {
  if (!existsSync(chromiumPath) || availableSqliteDriver() === undefined) {
    console.log(`inspector: skipped (needs Chromium at ${chromiumPath} and a SQLite driver)`);
    return;
  }
  const folder = mkdtempSync(join(tmpdir(), 'skillbox-bench-inspector-'));
  const root = await generateSkillTree(skillCount);
  let browser: Browser | undefined;
  try {
    const assets = join(folder, 'assets');
    await buildInspectorAssets(assets);
    const databaseFile = join(folder, 'sessions.db');
    const writer = await openSqliteSessionStore({ path: databaseFile });
    await writer.createSession({ userId: user, sessionId });
    for (let start = 0; start < eventCount; start += 50) {
      const batch = Array.from({ length: Math.min(50, eventCount - start) }, (_, offset) =>
        sessionEvent(start + offset),
      );
      await writer.appendEvents({ userId: user, sessionId }, batch, { expectedVersion: start });
    }
    await writer.close();
    const repository = await FsSkillRepository.open({ roots: [root] });
    const store = await openSqliteSessionStore({ path: databaseFile });
    const inspector = await startInspector({ repository, store, userId: user, assetsDir: assets });
    try {
      const weights: Array<[string, number]> = [
        ['app.js', statSync(join(assets, 'app.js')).size],
        ['app.css', statSync(join(assets, 'app.css')).size],
      ];
      let timelineLength = 0;
      for (const path of ['/api/skills', '/api/catalog', '/api/sessions', `/api/sessions/${sessionId}`]) {
        const body = await (await fetch(new URL(path, inspector.url))).text();
        weights.push([path, Buffer.byteLength(body)]);
        if (path.endsWith(sessionId)) timelineLength = (JSON.parse(body) as { timeline: unknown[] }).timeline.length;
      }
      console.log(
        `inspector: ${skillCount} skills, a session of ${eventCount} events (${timelineLength} timeline entries)`,
      );
      console.log(`page weight: ${weights.map(([name, bytes]) => `${name} ${bytes} bytes`).join(', ')}`);

      browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
      const lastSkill = generatedName(skillCount - 1);
      const pages = {
        skills: {
          url: inspector.url,
          ready: { items: 'tbody tr', count: skillCount, also: `tr[data-skill="${lastSkill}"]` },
        },
        timeline: {
          url: `${inspector.url}#/sessions/${sessionId}`,
          ready: { items: 'ol.timeline li', count: timelineLength, also: '#timeline-search' },
        },
      };
      const figures = {
        skills: { firstPaint: [] as number[], ready: [] as number[] },
        timeline: { firstPaint: [] as number[], ready: [] as number[] },
      };
      // A first load of each, untimed: the browser's own start-up is no part of the page's cost.
      for (const page of Object.values(pages)) await openPage(browser, page.url, page.ready);
      for (let round = 0; round < rounds; round++) {
        // The two pages take turns, so load on a shared machine weighs on both alike.
        for (const name of (round % 2 === 0 ? ['skills', 'timeline'] : ['timeline', 'skills']) as Array<
          keyof typeof pages
        >) {
          const measured = await openPage(browser, pages[name].url, pages[name].ready);
          figures[name].firstPaint.push(measured.firstPaint);
          figures[name].ready.push(measured.ready);
        }
      }
      console.log(
        `skills page (${skillCount} skills): first paint ${formatSpread(spreadOf(figures.skills.firstPaint), 0, ' ms')}, every row drawn ${formatSpread(spreadOf(figures.skills.ready), 0, ' ms')}`,
      );
      console.log(
        `session timeline (${eventCount} events): first paint ${formatSpread(spreadOf(figures.timeline.firstPaint), 0, ' ms')}, every entry drawn and searchable ${formatSpread(spreadOf(figures.timeline.ready), 0, ' ms')}`,
      );
      console.log(`(${rounds} loads of each page, medians [middle half])`);
    } finally {
      await inspector.close();
      await store.close();
    }
  } finally {
    await browser?.close();
    rmSync(folder, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  }
}
