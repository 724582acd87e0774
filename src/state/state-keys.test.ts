import { describe, expect, it } from 'vitest';
import { agentSegment, docsKey, loadedKey, loadedOrderKey, loadedPrefix, toolsKey } from './state-keys.js';

describe('disclosure state keys', () => {
  it('match the Go seed spelling and trim names', () => {
    expect(loadedKey('  agentA  ', '  demo  ')).toBe('temp:skill:loaded_by_agent:agentA/demo');
    expect(docsKey('agentA', 'demo')).toBe('temp:skill:docs_by_agent:agentA/demo');
    expect(toolsKey('agentA', 'demo')).toBe('temp:skill:tools_by_agent:agentA/demo');
    expect(loadedOrderKey('agent/child')).toBe('temp:skill:loaded_order_by_agent:agent%2Fchild');
  });

  it('keeps a sub-agent out of its parent key prefix', () => {
    expect(loadedKey('agent/child', 'demo').startsWith(loadedPrefix('agent'))).toBe(false);
  });
});

describe('agentSegment', () => {
  // Expected values are what Go's url.PathEscape returns for the same strings.
  it.each([
    ['agent/child', 'agent%2Fchild'],
    ['my agent', 'my%20agent'],
    ['a:b@c+d=e&f$g', 'a:b@c+d=e&f$g'],
    ['x;y,z?w#v', 'x%3By%2Cz%3Fw%23v'],
    ["!*'()", '%21%2A%27%28%29'],
    ['A-Z_a.z~09', 'A-Z_a.z~09'],
    ['100%', '100%25'],
    ['é数😀', '%C3%A9%E6%95%B0%F0%9F%98%80'],
    ['tab\there\n', 'tab%09here'],
  ])('escapes %j as url.PathEscape does', (name, expected) => {
    expect(agentSegment(name)).toBe(expected);
    expect(loadedOrderKey(name)).toBe(`temp:skill:loaded_order_by_agent:${expected}`);
  });
});
