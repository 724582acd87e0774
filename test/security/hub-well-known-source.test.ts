import { describeSkillSourceHostileConformance } from '../../src/hub/testing/source-conformance.js';
import { openWellKnownV1Harness, openWellKnownV2Harness } from '../support/well-known-source-harness.js';

describeSkillSourceHostileConformance('well-known v0.1', openWellKnownV1Harness);
describeSkillSourceHostileConformance('well-known v0.2', openWellKnownV2Harness);
