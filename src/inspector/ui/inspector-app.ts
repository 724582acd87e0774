// The inspector's page, in the browser. Preact (4 kB, kept, no build step of its own beyond the
// bundle scripts/build-inspector.mjs makes) renders it; `h` calls instead of JSX keep the sources
// plain TypeScript. Every string from a skill or a session is rendered as text (Preact escapes
// it), never as markup.
import { type ComponentChildren, h, render } from 'preact';
import { useEffect, useState } from 'preact/hooks';

interface InspectedSkill {
  name: string;
  description: string;
  path?: string;
  docs: string[];
  tools: string[];
  modelVisible: boolean;
  hiddenReason?: string;
  tokens: { catalog: number; body: number; docs: number };
  lenientWarnings: string[];
  strict?: { valid: boolean; errors: string[]; warnings: string[] };
  requires?: { programs: string[]; anyPrograms: string[]; env: string[]; os: string[]; network: boolean };
  requirementCheck?: { met: boolean; missing: string[] };
}

interface SkillsView {
  skills: InspectedSkill[];
  skipped: Array<{ path: string; reason: string }>;
  shadowed: Array<{ name: string; path: string; winner: string }>;
  warnings: string[];
  totals: { catalog: number; bodies: number; bodiesAndDocs: number };
  requirementsCheckedIn?: string;
}

interface CatalogView {
  text: string;
  tokens: number;
  described: number;
  total: number;
  shortened: boolean;
  overBudget: boolean;
}

interface SessionSummary {
  appName: string;
  userId: string;
  sessionId: string;
  version: number;
  createdAt: number;
  updatedAt: number;
}

interface TimelineItem {
  version: number;
  timestamp: number;
  author: string;
  kind: string;
  title: string;
  detail?: string;
}

interface RunView {
  version: number;
  tool: string;
  skill?: string;
  command: string;
  exitCode?: number;
  timedOut?: boolean;
  durationMs?: number;
  stdout?: string;
  stderr?: string;
  outputFiles: Array<{ name: string; mimeType?: string; sizeBytes?: number; content?: string; truncated?: boolean }>;
  warnings: string[];
  limitsHit: string[];
  error?: string;
}

interface SessionView extends SessionSummary {
  timeline: TimelineItem[];
  runs: RunView[];
}

/** How often an open session asks for what came after its last event. */
const followEveryMs = 2000;

const token = new URLSearchParams(location.search).get('token');

async function fetchJson<T>(path: string): Promise<T> {
  const response = await fetch(path, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The data at `path`, with its loading and error states. */
function useData<T>(path: string): { data?: T; error?: string } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  useEffect(() => {
    let current = true;
    setState({});
    fetchJson<T>(path).then(
      (data) => current && setState({ data }),
      (error: unknown) => current && setState({ error: (error as Error).message }),
    );
    return () => {
      current = false;
    };
  }, [path]);
  return state;
}

function useRoute(): string {
  const [route, setRoute] = useState(location.hash.slice(1) || '/skills');
  useEffect(() => {
    const changed = () => setRoute(location.hash.slice(1) || '/skills');
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function Loading(props: { what: string; error?: string | undefined }) {
  return props.error === undefined
    ? h('p', { role: 'status' }, `Loading ${props.what}…`)
    : h('p', { role: 'alert', class: 'error' }, props.error);
}

/** A bar whose length is `value` against `most`, with the figure written out for screen readers and people alike. */
function CostBar(props: { value: number; most: number; label: string }) {
  const width = props.most === 0 ? 0 : Math.max(1, Math.round((100 * props.value) / props.most));
  return h(
    'span',
    { class: 'cost' },
    h('span', { class: 'bar', style: `width:${width}%`, 'aria-hidden': 'true' }),
    h('span', { class: 'figure', 'aria-label': `${props.value} ${props.label}` }, String(props.value)),
  );
}

function SkillRow(props: { skill: InspectedSkill; most: number }) {
  const { skill } = props;
  const problems = [...(skill.strict?.errors ?? []), ...skill.lenientWarnings];
  return h(
    'tr',
    { 'data-skill': skill.name },
    h(
      'th',
      { scope: 'row' },
      h('span', { class: 'name' }, skill.name),
      h('p', { class: 'description' }, skill.description),
    ),
    h('td', null, skill.modelVisible ? 'visible' : `hidden: ${skill.hiddenReason ?? ''}`),
    h('td', null, h(CostBar, { value: skill.tokens.catalog, most: props.most, label: 'catalog tokens' })),
    h('td', null, String(skill.tokens.body)),
    h('td', null, `${skill.tokens.docs} (${skill.docs.length} docs)`),
    h(
      'td',
      null,
      skill.strict === undefined ? 'no folder' : skill.strict.valid ? 'valid' : 'invalid',
      problems.length === 0
        ? null
        : h(
            'ul',
            { class: 'problems' },
            problems.map((problem) => h('li', null, problem)),
          ),
    ),
    h('td', { class: 'requirements' }, h(Requirements, { skill })),
  );
}

/** What a skill declares it needs, and whether that is there where its commands run. */
function Requirements(props: { skill: InspectedSkill }) {
  const { requires, requirementCheck } = props.skill;
  if (requires === undefined) return '—';
  const declared = [
    ...requires.programs,
    ...(requires.anyPrograms.length === 0 ? [] : [`one of ${requires.anyPrograms.join(' ')}`]),
    ...requires.env.map((name) => `$${name}`),
    ...requires.os.map((os) => `OS ${os}`),
    ...(requires.network ? ['network'] : []),
  ].join(', ');
  return h(
    'div',
    null,
    h('span', null, declared),
    requirementCheck === undefined
      ? null
      : requirementCheck.met
        ? h('p', { class: 'met', 'data-requirements': 'met' }, 'met')
        : h(
            'div',
            { class: 'missing', 'data-requirements': 'missing' },
            'missing: ',
            h(
              'ul',
              { class: 'problems' },
              requirementCheck.missing.map((line) => h('li', null, line)),
            ),
          ),
  );
}

function SkillsPage() {
  const { data, error } = useData<SkillsView>('/api/skills');
  if (data === undefined) return h(Loading, { what: 'skills', error });
  const most = Math.max(0, ...data.skills.map((skill) => skill.tokens.catalog));
  return h(
    'section',
    { 'aria-labelledby': 'skills-title' },
    h('h2', { id: 'skills-title' }, `Skills (${data.skills.length})`),
    h(
      'p',
      { class: 'totals' },
      `Catalog: ${data.totals.catalog} tokens. All bodies at once: ${data.totals.bodies} tokens; with docs: ${data.totals.bodiesAndDocs}.`,
      data.requirementsCheckedIn === undefined
        ? ''
        : ` Requirements checked in the ${data.requirementsCheckedIn} runtime, as skill_run sees them with default options (no host variables, no network).`,
    ),
    h(
      'table',
      null,
      h('caption', null, 'Each skill: what the model sees, what it costs in o200k tokens, what is wrong with it'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Skill', 'Model', 'Catalog tokens', 'Body tokens', 'Docs tokens', 'Validation', 'Requires'].map((title) =>
            h('th', { scope: 'col' }, title),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        data.skills.map((skill) => h(SkillRow, { skill, most })),
      ),
    ),
    data.skipped.length === 0
      ? null
      : h(
          'section',
          { 'aria-labelledby': 'skipped-title' },
          h('h3', { id: 'skipped-title' }, `Skipped (${data.skipped.length})`),
          h(
            'ul',
            null,
            data.skipped.map((skipped) => h('li', null, h('code', null, skipped.path), `: ${skipped.reason}`)),
          ),
        ),
    data.shadowed.length === 0
      ? null
      : h(
          'section',
          { 'aria-labelledby': 'shadowed-title' },
          h('h3', { id: 'shadowed-title' }, `Shadowed (${data.shadowed.length})`),
          h(
            'ul',
            null,
            data.shadowed.map((shadowed) =>
              h(
                'li',
                null,
                `${shadowed.name}: `,
                h('code', null, shadowed.path),
                ' (hidden by ',
                h('code', null, shadowed.winner),
                ')',
              ),
            ),
          ),
        ),
  );
}

function CatalogPage() {
  const [budget, setBudget] = useState('');
  const { data, error } = useData<CatalogView>(
    `/api/catalog${budget === '' ? '' : `?budget=${encodeURIComponent(budget)}`}`,
  );
  return h(
    'section',
    { 'aria-labelledby': 'catalog-title' },
    h('h2', { id: 'catalog-title' }, 'Catalog, as the model receives it'),
    h(
      'label',
      { for: 'budget' },
      'Token budget ',
      h('input', {
        id: 'budget',
        type: 'number',
        min: '1',
        value: budget,
        onInput: (event: Event) => setBudget((event.target as HTMLInputElement).value),
      }),
    ),
    data === undefined
      ? h(Loading, { what: 'the catalog', error })
      : h(
          'div',
          null,
          h(
            'p',
            { class: 'totals', role: 'status' },
            `${data.tokens} tokens; ${data.described} of ${data.total} skills described${data.shortened ? ', shortened to fit' : ''}${data.overBudget ? ', over the budget even with names alone' : ''}.`,
          ),
          h('pre', { class: 'catalog' }, data.text),
        ),
  );
}

function SessionsPage() {
  const { data, error } = useData<{ store: boolean; user: string; sessions: SessionSummary[] }>('/api/sessions');
  if (data === undefined) return h(Loading, { what: 'sessions', error });
  if (!data.store) return h('p', null, 'No session store was given: start the inspector with --store.');
  return h(
    'section',
    { 'aria-labelledby': 'sessions-title' },
    h('h2', { id: 'sessions-title' }, `Sessions of ${data.user} (${data.sessions.length})`),
    h(
      'ul',
      { class: 'sessions' },
      data.sessions.map((session) =>
        h(
          'li',
          null,
          h('a', { href: `#/sessions/${encodeURIComponent(session.sessionId)}` }, session.sessionId),
          ` — ${session.version} events, last ${new Date(session.updatedAt).toLocaleString()}`,
        ),
      ),
    ),
  );
}

/**
 * A session, followed live: after the first answer, the page asks every `followEveryMs` for the
 * events after the last one it has, and appends them (a session being served by `skillbox chat`,
 * `skillbox mcp` or an agent grows while it is looked at).
 */
function useFollowedSession(sessionId: string): { data?: SessionView; error?: string } {
  const [state, setState] = useState<{ data?: SessionView; error?: string }>({});
  useEffect(() => {
    let current: SessionView | undefined;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const path = `/api/sessions/${encodeURIComponent(sessionId)}`;
    const ask = async () => {
      try {
        const next = await fetchJson<SessionView>(current === undefined ? path : `${path}?after=${current.version}`);
        if (stopped) return;
        if (current === undefined || next.version > current.version) {
          current =
            current === undefined
              ? next
              : { ...next, timeline: [...current.timeline, ...next.timeline], runs: [...current.runs, ...next.runs] };
          setState({ data: current });
        }
      } catch (error) {
        if (!stopped && current === undefined) setState({ error: (error as Error).message });
      }
      if (!stopped) timer = setTimeout(ask, followEveryMs);
    };
    void ask();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [sessionId]);
  return state;
}

function RunCard(props: { run: RunView }) {
  const { run } = props;
  const status =
    run.error !== undefined
      ? `failed: ${run.error}`
      : `exit ${run.exitCode ?? '?'}${run.timedOut ? ', timed out' : ''}${run.durationMs === undefined ? '' : `, ${run.durationMs} ms`}`;
  return h(
    'li',
    { class: 'run', 'data-exit': String(run.exitCode ?? '') },
    h(
      'p',
      null,
      h('code', null, run.command),
      ` — ${run.tool}${run.skill === undefined ? '' : ` of ${run.skill}`}: ${status}`,
    ),
    run.warnings.length + run.limitsHit.length === 0
      ? null
      : h(
          'ul',
          { class: 'problems' },
          [...run.limitsHit.map((limit) => `limit hit: ${limit}`), ...run.warnings].map((line) => h('li', null, line)),
        ),
    run.stdout ? h('details', null, h('summary', null, 'stdout'), h('pre', null, run.stdout)) : null,
    run.stderr ? h('details', null, h('summary', null, 'stderr'), h('pre', null, run.stderr)) : null,
    run.outputFiles.length === 0
      ? null
      : h(
          'ul',
          { class: 'outputs' },
          run.outputFiles.map((file) =>
            h(
              'li',
              null,
              h('code', null, file.name),
              ` (${file.mimeType ?? 'unknown type'}, ${file.sizeBytes ?? '?'} bytes${file.truncated ? ', cut' : ''})`,
              file.content === undefined ? null : h('pre', { class: 'output-content' }, file.content),
            ),
          ),
        ),
  );
}

function TimelinePage(props: { sessionId: string }) {
  const { data, error } = useFollowedSession(props.sessionId);
  if (data === undefined) return h(Loading, { what: 'the session', error });
  return h(
    'section',
    { 'aria-labelledby': 'timeline-title' },
    h('p', null, h('a', { href: '#/sessions' }, '← All sessions')),
    h('h2', { id: 'timeline-title' }, `Session ${data.sessionId}`),
    h(
      'p',
      { class: 'totals', role: 'status' },
      `${data.version} events, ${data.timeline.length} timeline entries, ${data.runs.length} runs`,
    ),
    h(
      'ol',
      { class: 'timeline' },
      data.timeline.map((item) =>
        h(
          'li',
          { class: `item ${item.kind}`, 'data-kind': item.kind },
          h('span', { class: 'kind' }, item.kind),
          h('span', { class: 'title' }, item.title),
          item.detail === undefined
            ? null
            : h('details', null, h('summary', null, 'details'), h('pre', null, item.detail)),
        ),
      ),
    ),
    data.runs.length === 0
      ? null
      : h(
          'section',
          { 'aria-labelledby': 'runs-title' },
          h('h3', { id: 'runs-title' }, `Runs (${data.runs.length})`),
          h(
            'ol',
            { class: 'runs' },
            data.runs.map((run) => h(RunCard, { run })),
          ),
        ),
  );
}

function App() {
  const route = useRoute();
  const session = /^\/sessions\/(.+)$/.exec(route);
  let content: ComponentChildren;
  if (session !== null) content = h(TimelinePage, { sessionId: decodeURIComponent(session[1] as string) });
  else if (route === '/catalog') content = h(CatalogPage, null);
  else if (route === '/sessions') content = h(SessionsPage, null);
  else content = h(SkillsPage, null);
  const link = (href: string, label: string) =>
    h('a', { href: `#${href}`, 'aria-current': route.startsWith(href) ? 'page' : undefined }, label);
  return h(
    'div',
    null,
    h(
      'header',
      null,
      h('h1', null, 'skillbox inspector'),
      h(
        'nav',
        { 'aria-label': 'Pages' },
        link('/skills', 'Skills'),
        link('/catalog', 'Catalog'),
        link('/sessions', 'Sessions'),
      ),
    ),
    h('main', null, content),
  );
}

const container = document.getElementById('app') as HTMLElement;
// The page's placeholder goes: render() diffs against what the container holds, it does not replace it.
container.textContent = '';
render(h(App, null), container);
