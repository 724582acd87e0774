import { describeSkillSourceHostileConformance } from '../../src/hub/testing/source-conformance.js';
import { openGitSourceHarness } from '../support/git-source-harness.js';

describeSkillSourceHostileConformance('git', openGitSourceHarness);
