export * from './errors.js';
export { normalizeBundledPath } from './bundled-path.js';
export { documentFileExtensions, isDocumentPath } from './document-files.js';
export { MemorySkillRepository, createMemorySkillRepository, type MemorySkillDefinition } from './memory-skill-repository.js';
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
