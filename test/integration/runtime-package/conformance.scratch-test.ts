// Run in the scratch project only (runtime-package.integration.test.ts): the suite as a user's
// test file calls it, from the installed package.
import { describeRuntimeConformance } from 'skillbox/testing';
import { HostProcessRuntime } from './host-process-runtime.js';

describeRuntimeConformance('scratch host-process', () => new HostProcessRuntime());
