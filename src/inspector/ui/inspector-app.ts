// The inspector's page, in the browser. Preact (4 kB, kept, no build step of its own beyond the
// bundle scripts/build-inspector.mjs makes) renders it; `h` calls instead of JSX keep the sources
// plain TypeScript. Every string from a skill or a session is rendered as text (Preact escapes
// it), never as markup.
import { type ComponentChildren, h, render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { linkApprovals } from '../approval-links.js';
import type {
  CatalogView,
  InspectedSkill,
  RunView,
  SessionsListView,
  SessionView,
  SkillsView,
  TimelineItem,
} from '../inspector-views.js';

/** How often an open session asks for what came after its last event. */
const followEveryMs = 2000;

const token = new URLSearchParams(location.search).get('token');

async function fetchJson<T>(path: string): Promise<T> {
  const response = await fetch(path, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The data at `path`, with its loading and error states; asked again when `path` or `again` changes. */
function useData<T>(path: string, again = 0): { data?: T; error?: string } {
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
  }, [path, again]);
  return state;
}

/** A route's path and its query: `#/sessions/ID?user=ada&app=default`. */
function splitRoute(route: string): { path: string; query: URLSearchParams } {
  const at = route.indexOf('?');
  return at === -1
    ? { path: route, query: new URLSearchParams() }
    : { path: route.slice(0, at), query: new URLSearchParams(route.slice(at + 1)) };
}

/** `user` and `app` of a route's query, as the API takes them (absent: the server's --user and --app). */
function ownerQuery(query: URLSearchParams): string {
  const owner = new URLSearchParams();
  for (const field of ['user', 'app']) {
    const value = query.get(field);
    if (value !== null && value !== '') owner.set(field, value);
  }
  const text = owner.toString();
  return text === '' ? '' : `?${text}`;
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
    h('td', { class: 'source' }, h(Source, { skill })),
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

const sourceKinds = { folder: 'folder', url: 'URL', mcp: 'MCP server', code: 'code' } as const;

/** Where a skill came from and, under a skills-lock.json, whether its folder is what was installed. */
function Source(props: { skill: InspectedSkill }) {
  const { source, lock } = props.skill;
  return h(
    'div',
    null,
    h('span', { 'data-source': source.kind }, `${sourceKinds[source.kind]} `),
    h('code', null, source.label),
    lock === undefined
      ? null
      : h(
          'div',
          { class: lock.matches ? 'met' : 'missing', 'data-lock': lock.matches ? 'matches' : 'differs' },
          lock.matches
            ? `locked: matches ${lock.entry ?? ''} in skills-lock.json${lock.source === undefined ? '' : ` (from ${lock.source}${lock.ref === undefined ? '' : ` at ${lock.ref}`})`}`
            : 'differs from its lock: ',
          lock.matches
            ? null
            : h(
                'ul',
                { class: 'problems' },
                lock.differences.map((line) => h('li', null, line)),
              ),
        ),
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
  // The server keeps this page's data until the repository changes; a rescan reads the roots again.
  const [rescans, setRescans] = useState(0);
  const { data, error } = useData<SkillsView>(rescans === 0 ? '/api/skills' : '/api/skills?rescan=1', rescans);
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
      'p',
      null,
      h('button', { type: 'button', onClick: () => setRescans((count) => count + 1) }, 'Scan the roots again'),
      ' (a body, doc or new folder changed since this page was computed)',
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
          ['Skill', 'Model', 'Source', 'Catalog tokens', 'Body tokens', 'Docs tokens', 'Validation', 'Requires'].map(
            (title) => h('th', { scope: 'col' }, title),
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

function SessionsPage(props: { query: URLSearchParams }) {
  const owner = ownerQuery(props.query);
  const { data, error } = useData<SessionsListView>(`/api/sessions${owner}`);
  if (data === undefined) return h(Loading, { what: 'sessions', error });
  if (!data.store) return h('p', null, 'No session store was given: start the inspector with --store.');
  return h(
    'section',
    { 'aria-labelledby': 'sessions-title' },
    h('h2', { id: 'sessions-title' }, `Sessions of ${data.user} in ${data.app} (${data.sessions.length})`),
    h(OwnerForm, { user: data.user, app: data.app }),
    h(
      'ul',
      { class: 'sessions' },
      data.sessions.map((session) =>
        h(
          'li',
          null,
          h('a', { href: `#/sessions/${encodeURIComponent(session.sessionId)}${owner}` }, session.sessionId),
          ` — ${session.version} events, last ${new Date(session.updatedAt).toLocaleString()}`,
        ),
      ),
    ),
  );
}

/**
 * Whose sessions to list. A store's public API lists one user's sessions in one app and cannot
 * name its users or apps, so both are typed in (starting from --user and --app), not picked.
 */
function OwnerForm(props: { user: string; app: string }) {
  const [user, setUser] = useState(props.user);
  const [app, setApp] = useState(props.app);
  const field = (id: string, label: string, value: string, set: (value: string) => void) =>
    h(
      'label',
      { for: id },
      `${label} `,
      h('input', {
        id,
        type: 'text',
        value,
        required: true,
        onInput: (event: Event) => set((event.target as HTMLInputElement).value),
      }),
    );
  return h(
    'form',
    {
      class: 'owner',
      'aria-label': 'Whose sessions',
      onSubmit: (event: Event) => {
        // Shown by changing the route, not by posting: the page asks the API itself.
        event.preventDefault();
        location.hash = `#/sessions?${new URLSearchParams({ user: user.trim(), app: app.trim() })}`;
      },
    },
    field('owner-user', 'User', user, setUser),
    field('owner-app', 'App', app, setApp),
    h('button', { type: 'submit' }, 'List sessions'),
  );
}

/**
 * A session, followed live: after the first answer, the page asks every `followEveryMs` for the
 * events after the last one it has, and appends them (a session being served by `skillbox chat`,
 * `skillbox mcp` or an agent grows while it is looked at).
 */
function useFollowedSession(sessionId: string, owner: string): { data?: SessionView; error?: string } {
  const [state, setState] = useState<{ data?: SessionView; error?: string }>({});
  useEffect(() => {
    let current: SessionView | undefined;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const path = `/api/sessions/${encodeURIComponent(sessionId)}${owner}`;
    const ask = async () => {
      try {
        const next = await fetchJson<SessionView>(
          current === undefined ? path : `${path}${owner === '' ? '?' : '&'}after=${current.version}`,
        );
        if (stopped) return;
        if (current === undefined || next.version > current.version) {
          current =
            current === undefined
              ? next
              : {
                  ...next,
                  // Linked again over the whole timeline: an answer that arrived now settles an earlier request.
                  timeline: linkApprovals([...current.timeline, ...next.timeline]),
                  runs: [...current.runs, ...next.runs],
                };
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
  }, [sessionId, owner]);
  return state;
}

/** Output types the page shows as pictures; the server serves them inline only when the bytes agree. */
const shownImageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The address of one output file of a run (with the token: an <img> sends no Authorization header). */
function outputFileUrl(sessionId: string, owner: string, run: RunView, name: string): string {
  const query = new URLSearchParams(owner.slice(1));
  query.set('run', String(run.version));
  query.set('file', name);
  if (token !== null) query.set('token', token);
  return `/api/sessions/${encodeURIComponent(sessionId)}/outputs?${query}`;
}

/** The address of one artifact a run saved. */
function artifactUrl(sessionId: string, owner: string, run: RunView, name: string, version: number): string {
  const query = new URLSearchParams(owner.slice(1));
  query.set('run', String(run.version));
  query.set('name', name);
  query.set('version', String(version));
  if (token !== null) query.set('token', token);
  return `/api/sessions/${encodeURIComponent(sessionId)}/artifacts?${query}`;
}

/** Names that are shown as pictures when saved as artifacts (the server sends them inline only when the bytes agree). */
const imageNamePattern = /\.(png|jpe?g|gif|webp)$/i;

/** An output image; one the server does not serve (the workspace is gone, a link was refused) says so instead. */
function OutputImage(props: { src: string; alt: string }) {
  const [failed, setFailed] = useState(false);
  return failed
    ? h('span', { class: 'output-missing' }, ' (not shown: the inspector did not serve it; the download link says why)')
    : h('img', { class: 'output-image', src: props.src, alt: props.alt, onError: () => setFailed(true) });
}

function RunCard(props: {
  run: RunView;
  fileUrl?: ((name: string) => string) | undefined;
  artifactUrl?: ((name: string, version: number) => string) | undefined;
}) {
  const { run, fileUrl } = props;
  const savedUrl = props.artifactUrl;
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
              fileUrl === undefined
                ? null
                : [
                    ' ',
                    h('a', { href: fileUrl(file.name), download: file.name.split('/').pop() }, `download ${file.name}`),
                    shownImageTypes.has(file.mimeType ?? '')
                      ? h(OutputImage, { src: fileUrl(file.name), alt: `${file.name}, an image the run made` })
                      : null,
                  ],
              file.content === undefined ? null : h('pre', { class: 'output-content' }, file.content),
            ),
          ),
        ),
    run.artifactFiles.length === 0
      ? null
      : h(
          'ul',
          { class: 'artifacts', 'aria-label': 'Saved as artifacts' },
          run.artifactFiles.map((saved) =>
            h(
              'li',
              null,
              'saved as ',
              h('code', null, `artifact://${saved.name}@${saved.version}`),
              savedUrl === undefined
                ? null
                : [
                    ' ',
                    h(
                      'a',
                      { href: savedUrl(saved.name, saved.version), download: saved.name.split('/').pop() },
                      `download artifact ${saved.name}@${saved.version}`,
                    ),
                    imageNamePattern.test(saved.name)
                      ? h(OutputImage, {
                          src: savedUrl(saved.name, saved.version),
                          alt: `artifact ${saved.name} version ${saved.version}, an image the run saved`,
                        })
                      : null,
                  ],
            ),
          ),
        ),
  );
}

/** Where an approval request was answered (or that it waits), and which request an answer answers. */
/**
 * Where an approval entry's counterpart is on the page: element ids per approval, `approval-<n>-request`
 * and `approval-<n>-answer`, numbered in the order the timeline first names each approval.
 */
function approvalElementIds(timeline: readonly TimelineItem[]): (item: TimelineItem, counterpart?: boolean) => string {
  const numbers = new Map<string, number>();
  for (const item of timeline)
    if (item.approval !== undefined && !numbers.has(item.approval.id)) numbers.set(item.approval.id, numbers.size + 1);
  return (item, counterpart = false) => {
    const request = (item.kind === 'approval-request') !== counterpart;
    return `approval-${numbers.get(item.approval?.id ?? '')}-${request ? 'request' : 'answer'}`;
  };
}

function ApprovalStatus(props: { item: TimelineItem; counterpart: string | undefined }) {
  const { item, counterpart } = props;
  const link = item.approval;
  if (link === undefined) return null;
  const call = link.toolCallId === undefined ? '' : ` (call ${link.toolCallId})`;
  const status =
    item.kind === 'approval-request'
      ? link.waiting
        ? `waiting for an answer${call}`
        : `answered in event ${link.answeredIn}: ${link.answer}${call}`
      : link.requestIn === undefined
        ? `no request for it in this session${call}`
        : `answers the request of event ${link.requestIn}${call}`;
  return [
    h(
      'span',
      {
        class: `approval-status${link.waiting ? ' waiting' : ''}`,
        'data-approval': link.id,
        ...(item.kind === 'approval-request' ? { 'data-waiting': String(link.waiting === true) } : {}),
      },
      status,
    ),
    // Focusing the entry scrolls it into view and moves a keyboard user there, as a link would.
    counterpart === undefined
      ? null
      : h(
          'button',
          { type: 'button', class: 'to-counterpart', onClick: () => document.getElementById(counterpart)?.focus() },
          item.kind === 'approval-request' ? 'Go to its answer' : 'Go to its request',
        ),
  ];
}

/** Whether a timeline entry holds `words` (case-insensitive) in its kind, title or details. */
function matches(item: TimelineItem, words: string): boolean {
  const wanted = words.trim().toLocaleLowerCase();
  if (wanted === '') return true;
  return [item.kind, item.title, item.detail ?? '', item.approval?.answer ?? ''].some((text) =>
    text.toLocaleLowerCase().includes(wanted),
  );
}

function TimelinePage(props: { sessionId: string; query: URLSearchParams }) {
  const owner = ownerQuery(props.query);
  const { data, error } = useFollowedSession(props.sessionId, owner);
  const [search, setSearch] = useState('');
  if (data === undefined) return h(Loading, { what: 'the session', error });
  const shown = data.timeline.filter((item) => matches(item, search));
  const approvalId = approvalElementIds(data.timeline);
  return h(
    'section',
    { 'aria-labelledby': 'timeline-title' },
    h('p', null, h('a', { href: `#/sessions${owner}` }, '← All sessions')),
    h('h2', { id: 'timeline-title' }, `Session ${data.sessionId}`),
    h(
      'p',
      { class: 'totals', role: 'status' },
      `${data.version} events, ${data.timeline.length} timeline entries, ${data.runs.length} runs`,
    ),
    h(
      'div',
      { class: 'search', role: 'search' },
      h(
        'label',
        { for: 'timeline-search' },
        'Search the timeline ',
        h('input', {
          id: 'timeline-search',
          type: 'search',
          value: search,
          'aria-describedby': 'timeline-matches',
          onInput: (event: Event) => setSearch((event.target as HTMLInputElement).value),
        }),
      ),
      h(
        'p',
        { id: 'timeline-matches', class: 'totals', 'aria-live': 'polite' },
        search.trim() === '' ? '' : `${shown.length} of ${data.timeline.length} entries match`,
      ),
    ),
    h(
      'ol',
      { class: 'timeline' },
      shown.map((item) =>
        h(
          'li',
          {
            class: `item ${item.kind}`,
            'data-kind': item.kind,
            ...(item.approval === undefined ? {} : { id: approvalId(item), tabIndex: -1 }),
          },
          h('span', { class: 'kind' }, item.kind),
          h('span', { class: 'title' }, item.title),
          item.approval === undefined
            ? null
            : h(ApprovalStatus, {
                item,
                // Only a counterpart on the page now (a search may hide it, a waiting request has none).
                counterpart:
                  (item.approval.requestIn ?? item.approval.answeredIn) !== undefined &&
                  shown.some((other) => other.approval?.id === item.approval?.id && other.kind !== item.kind)
                    ? approvalId(item, true)
                    : undefined,
              }),
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
            data.runs.map((run) =>
              h(RunCard, {
                run,
                fileUrl: data.outputFilesServed
                  ? (name: string) => outputFileUrl(props.sessionId, owner, run, name)
                  : undefined,
                artifactUrl: data.artifactsServed
                  ? (name: string, version: number) => artifactUrl(props.sessionId, owner, run, name, version)
                  : undefined,
              }),
            ),
          ),
        ),
  );
}

function App() {
  const route = useRoute();
  const { path, query } = splitRoute(route);
  const session = /^\/sessions\/(.+)$/.exec(path);
  let content: ComponentChildren;
  if (session !== null) content = h(TimelinePage, { sessionId: decodeURIComponent(session[1] as string), query });
  else if (path === '/catalog') content = h(CatalogPage, null);
  else if (path === '/sessions') content = h(SessionsPage, { query });
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
