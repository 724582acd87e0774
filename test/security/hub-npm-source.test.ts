import { describeSkillSourceHostileConformance } from '../../src/hub/testing/source-conformance.js';
import { openNpmSourceHarness } from '../support/npm-source-harness.js';

describeSkillSourceHostileConformance('npm', openNpmSourceHarness);
