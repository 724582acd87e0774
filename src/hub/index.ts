// skillbox/hub: installing skills from sources into a project, the lock file, verification, and
// the scan a reviewer reads before a skill runs.

export { fileSha256, skillDigest, skillsCliComputedHash } from '../repository/skill-digest.js';
export { LockedSkillError, SkillsLockError } from '../repository/skills-lock-errors.js';
export {
  type LockedFile,
  readSkillsLock,
  type SkillboxLockFields,
  type SkillsLock,
  type SkillsLockEntry,
  skillsLockFileFor,
  writeSkillsLock,
} from '../repository/skills-lock-file.js';
export type { AgentLink, AgentLinkMode } from './install/agent-links.js';
export { agentSkillFolders } from './install/agent-skill-folders.js';
export { type InitSkillOptions, initSkill } from './install/init-skill.js';
export { SkillInstallError } from './install/install-errors.js';
export {
  type AddRequest,
  addSkills,
  type InstalledSkill,
  type InstallerOptions,
  type InstallProgress,
  installFromLock,
  type RemovedSkill,
  removeSkill,
  updateSkills,
  type VerifyReport,
  verifyInstalled,
} from './install/installer.js';
export { formatScanReports } from './scan/format-scan-report.js';
export type { ScanFinding, ScanFindingKind, SkillScanReport } from './scan/scan-finding.js';
export { scanSkillFolders } from './scan/scan-folder.js';
export { type ScannedEntry, scanSkill } from './scan/scan-skill.js';
export { defaultSkillSizeLimits, type SkillSizeLimits } from './skill-size-limits.js';
export type {
  FetchedFile,
  FetchedSkill,
  ResolvedSource,
  SkillSource,
  SkillSourceType,
  SourceCallOptions,
  SourceSearchResult,
} from './skill-source.js';
export { createSourceRegistry, type SourceRegistry } from './source-registry.js';
export { type ClawHubSourceOptions, createClawHubSource } from './sources/clawhub-source.js';
export { createSkillSources, type SkillSourcesOptions } from './sources/create-skill-sources.js';
export { createGitSource, type GitSourceOptions } from './sources/git-source.js';
export { createGitHubSource, type GitHubSkillSource, type GitHubSourceOptions } from './sources/github-source.js';
export { createLocalSkillSource, type LocalSkillSourceOptions } from './sources/local-source.js';
export { createMarketplaceSource } from './sources/marketplace-source.js';
export { createNpmSource, type NpmSourceOptions } from './sources/npm-source.js';
export { SkillSourceError, type SkillSourceFailure } from './sources/skill-source-error.js';
export { createSkillsShSource, type SkillsShSourceOptions } from './sources/skills-sh-source.js';
export { defaultSourceFetchLimits, type SourceFetchLimits } from './sources/source-limits.js';
export { createWellKnownSource, type WellKnownSourceOptions } from './sources/well-known-source.js';
export type { UploadProvider } from './upload/provider-endpoints.js';
export { SkillUploadFailedError, SkillUploadRefusedError } from './upload/upload-errors.js';
export type { UploadedSkillRecord, UploadRecord } from './upload/upload-record.js';
export {
  type UploadedSkill,
  type UploadSkillsOptions,
  type UploadSkillsResult,
  uploadSkills,
} from './upload/upload-skills.js';
