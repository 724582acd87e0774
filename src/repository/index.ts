export * from './errors.js';
export { normalizeBundledPath } from './bundled-path.js';
export { defaultMaxReadableFileBytes } from './read-bundled-file.js';
export { documentFileExtensions, isDocumentPath } from './document-files.js';
export {
  MemorySkillRepository,
  createMemorySkillRepository,
  type MemorySkillDefinition,
  type MemorySkillRepositoryOptions,
} from './memory-skill-repository.js';
export {
  createBundledFileRule,
  defaultDeniedFileNames,
  isSkippedFolderName,
  skippedFolderNames,
  type BundledFileRule,
} from './bundled-file-rule.js';
export { CombinedSkillRepository, combineRepositories } from './combine-repositories.js';
export { FilteredSkillRepository, filterSkills, type SkillVisibility } from './filter-skills.js';
export {
  FsSkillRepository,
  createFsSkillRepository,
  type FsSkillRepositoryOptions,
  type SkillChangeEvent,
  type SkillWatchOptions,
  type SkillWatcher,
} from './fs-skill-repository.js';
export { standardSkillRoots, splitSkillsRootList, type StandardRootsOptions } from './standard-roots.js';
export { resolveUrlRoot, urlRootCacheEntry, urlRootSentinelName, type UrlRootOptions } from './url-root.js';
export { defaultSkillsCacheDir, type SkillsCacheDirOptions } from './url-root-cache-dir.js';
export { UrlRootError } from './url-root-errors.js';
export { ArchiveLimitsError, UnsafeArchiveError } from './archive/errors.js';
export { defaultArchiveLimits, type ArchiveLimits } from './archive/archive-limits.js';
export type { ArchiveEntry, ArchiveFormat } from './archive/archive-entry.js';
export { readArchive } from './archive/read-archive.js';
export { detectArchiveFormat, type SkillsDownloadKind } from './archive/detect-archive-format.js';
export { writeArchiveEntries } from './archive/write-archive-entries.js';
