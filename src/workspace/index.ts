export {};
export * from './runtimes/index.js';
