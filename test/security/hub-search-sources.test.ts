import { describeSkillSourceHostileConformance } from '../../src/hub/testing/source-conformance.js';
import { openClawHubSourceHarness } from '../support/clawhub-source-harness.js';
import { openSkillsShSourceHarness } from '../support/skills-sh-source-harness.js';

describeSkillSourceHostileConformance('clawhub', openClawHubSourceHarness);
describeSkillSourceHostileConformance('skills.sh', openSkillsShSourceHarness);
