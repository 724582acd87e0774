import { describe, expect, it } from 'vitest';
import { docsKey, loadedKey, loadedOrderKey, loadedPrefix, toolsKey } from './state-keys.js';

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
