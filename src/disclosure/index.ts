export * from './state-keys.js';
// StateDelta is the same type the sessions layer exports under that name; the root exports theirs.
export { applyDelta, mergeDeltas, overlayState, writeDelta, type StateReader } from './state-delta.js';
export * from './selection.js';
export * from './loaded-order.js';
export * from './load-mode.js';
export * from './errors.js';
export * from './loaded-skills.js';
export * from './skill-transitions.js';
export * from './turn-lifecycle.js';
export * from './declared-loads.js';
export * from './token-counter.js';
export * from './catalog-guidance.js';
export * from './catalog.js';
export * from './model-messages.js';
export * from './loaded-content.js';
export * from './materialize-request.js';
export * from './compact-skill-content.js';
export * from './token-report.js';
