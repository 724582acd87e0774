import { describe, expect, it } from 'vitest';
import { applyDelta, overlayState, type StateDelta } from '../state/state-delta.js';
import { docsKey, loadedKey, loadedOrderKey, toolsKey } from '../state/state-keys.js';
import { parseLoadedOrder, touchLoadedOrder } from './loaded-order.js';
import { readLoadedSkills } from './loaded-skills.js';
import { nextSelection, parseSelection } from './selection.js';
import { evictLeastRecentlyTouched, loadSkill, selectDocs, selectTools } from './skill-transitions.js';
import { afterModelRequest, beginTurn } from './turn-lifecycle.js';

const agent = 'agentA';

function run(state: Map<string, string>, delta: StateDelta): Map<string, string> {
  return applyDelta(state, delta);
}

describe('loaded order', () => {
  it('parses, de-duplicates and touches to the end', () => {
    const order = parseLoadedOrder(JSON.stringify(['a', ' b ', 'a', '', 'c']));
    expect(order).toEqual(['a', 'b', 'c']);
    expect(touchLoadedOrder(order, 'b', 'd', ' ', 'c')).toEqual(['a', 'b', 'd', 'c']);
    expect(parseLoadedOrder('{')).toEqual([]);
  });
});

describe('selections', () => {
  it('add keeps order and de-duplicates, replace narrows *, clear empties', () => {
    expect(nextSelection(['a.md'], { mode: 'add', items: ['b.md', 'a.md', 'c.md'] })).toEqual(['a.md', 'b.md', 'c.md']);
    expect(nextSelection('*', { mode: 'add', items: ['b.md'] })).toBe('*');
    expect(nextSelection('*', { mode: 'replace', items: ['b.md'] })).toEqual(['b.md']);
    expect(nextSelection(['a.md'], { mode: 'replace', includeAll: true })).toBe('*');
    expect(nextSelection('*', { mode: 'clear' })).toEqual([]);
  });

  it('reads foreign values as no selection instead of failing', () => {
    expect(parseSelection('{"a":1}')).toBeUndefined();
    expect(parseSelection('not json')).toBeUndefined();
    expect(parseSelection('["a.md",3," b.md "]')).toEqual(['a.md', 'b.md']);
  });
});

describe('loadSkill', () => {
  it('marks loaded, sets docs only when given, and touches the order', () => {
    let state = run(new Map(), loadSkill(new Map(), { agentName: agent, skill: 'calc', includeAllDocs: true }));
    expect(state.get(loadedKey(agent, 'calc'))).toBe('1');
    expect(state.get(docsKey(agent, 'calc'))).toBe('*');
    expect(state.get(loadedOrderKey(agent))).toBe('["calc"]');

    state = run(state, loadSkill(state, { agentName: agent, skill: 'other' }));
    expect(state.has(docsKey(agent, 'other'))).toBe(false);
    state = run(state, loadSkill(state, { agentName: agent, skill: 'calc' }));
    expect(state.get(docsKey(agent, 'calc'))).toBe('*');
    expect(state.get(loadedOrderKey(agent))).toBe('["other","calc"]');
  });

  it('selects every tool again on a re-load, after skill_select_tools narrowed the selection', () => {
    let state = run(new Map(), loadSkill(new Map(), { agentName: agent, skill: 'weather' }));
    const first = loadSkill(state, { agentName: agent, skill: 'weather' });
    expect(Object.keys(first)).not.toContain(toolsKey(agent, 'weather'));
    state = run(
      state,
      selectTools(state, { agentName: agent, skill: 'weather', mode: 'replace', items: ['get_current_weather'] }).delta,
    );
    expect(state.get(toolsKey(agent, 'weather'))).toBe('["get_current_weather"]');
    state = run(state, loadSkill(state, { agentName: agent, skill: 'weather' }));
    expect(state.has(toolsKey(agent, 'weather'))).toBe(false);
    expect(readLoadedSkills(state, agent)).toEqual([{ name: 'weather', docs: [], tools: '*' }]);
  });

  it('evicts the least recently touched beyond maxLoadedSkills', () => {
    let state = new Map<string, string>();
    for (const skill of ['a', 'b', 'c'])
      state = run(state, loadSkill(state, { agentName: agent, skill, docs: ['x.md'], maxLoadedSkills: 2 }));
    expect(readLoadedSkills(state, agent).map((skill) => skill.name)).toEqual(['b', 'c']);
    expect(state.has(docsKey(agent, 'a'))).toBe(false);
    // A selection counts as a touch: b becomes the most recent, so loading d evicts c.
    state = run(state, selectDocs(state, { agentName: agent, skill: 'b', mode: 'add', items: ['y.md'] }).delta);
    state = run(state, loadSkill(state, { agentName: agent, skill: 'd', maxLoadedSkills: 2 }));
    expect(readLoadedSkills(state, agent).map((skill) => skill.name)).toEqual(['b', 'd']);
    expect(state.get(loadedOrderKey(agent))).toBe('["b","d"]');
  });

  it('evicts skills missing from the stored order first, by name', () => {
    const state = new Map([
      [loadedKey(agent, 'z'), '1'],
      [loadedKey(agent, 'y'), '1'],
      [loadedKey(agent, 'm'), '1'],
      [loadedOrderKey(agent), '["m"]'],
    ]);
    const delta = evictLeastRecentlyTouched(state, { agentName: agent, maxLoadedSkills: 2 });
    expect(delta[loadedKey(agent, 'y')]).toBeNull();
    expect(delta[loadedOrderKey(agent)]).toBe('["z","m"]');
  });
});

describe('select docs and tools', () => {
  it('writes the selection and reports it', () => {
    const state = run(new Map(), loadSkill(new Map(), { agentName: agent, skill: 'weather' }));
    const result = selectTools(state, {
      agentName: agent,
      skill: 'weather',
      mode: 'replace',
      items: ['get_current_weather'],
    });
    expect(result.selection).toEqual(['get_current_weather']);
    const next = run(state, result.delta);
    expect(next.get(toolsKey(agent, 'weather'))).toBe('["get_current_weather"]');
    expect(readLoadedSkills(next, agent)).toEqual([{ name: 'weather', docs: [], tools: ['get_current_weather'] }]);
  });

  it('reads an unset tool selection as all tools', () => {
    const state = run(new Map(), loadSkill(new Map(), { agentName: agent, skill: 'weather' }));
    expect(readLoadedSkills(state, agent)[0]?.tools).toBe('*');
  });
});

describe('turn lifecycle', () => {
  const loaded = () => {
    let state = run(
      new Map([['unrelated', 'kept']]),
      loadSkill(new Map(), { agentName: agent, skill: 'calc', includeAllDocs: true }),
    );
    state = run(state, loadSkill(state, { agentName: 'agentA/child', skill: 'calc' }));
    return state;
  };

  it('turn mode clears only this agent at the start of a turn', () => {
    const state = run(loaded(), beginTurn(loaded(), { agentName: agent, mode: 'turn' }));
    expect(readLoadedSkills(state, agent)).toEqual([]);
    expect(readLoadedSkills(state, 'agentA/child').map((skill) => skill.name)).toEqual(['calc']);
    expect(state.get('unrelated')).toBe('kept');
    expect(beginTurn(loaded(), { agentName: agent, mode: 'session' })).toEqual({});
    expect(beginTurn(loaded(), { agentName: agent, mode: 'once' })).toEqual({});
  });

  it('once mode clears after a request; other modes keep state', () => {
    expect(afterModelRequest(loaded(), { agentName: agent, mode: 'turn' })).toEqual({});
    const state = run(loaded(), afterModelRequest(loaded(), { agentName: agent, mode: 'once' }));
    expect(readLoadedSkills(state, agent)).toEqual([]);
    expect(state.has(loadedOrderKey(agent))).toBe(false);
  });

  it('rejects an unknown mode instead of guessing', () => {
    expect(() => beginTurn(loaded(), { agentName: agent, mode: 'weekly' as never })).toThrow(
      'beginTurn: option "mode" must be one of "turn", "once", "session"; got "weekly"',
    );
  });
});

describe('overlayState', () => {
  it('shows pending writes and deletions without changing the base', () => {
    const base = new Map([
      ['a', '1'],
      ['b', '2'],
    ]);
    const view = overlayState(base, { a: null, c: '3' });
    expect([...view.keys()]).toEqual(['b', 'c']);
    expect(view.get('a')).toBeUndefined();
    expect(base.get('a')).toBe('1');
  });
});
