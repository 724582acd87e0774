import type { SkillRepository } from '../../../repository/types.js';

/** How often each reading method of a repository was called. */
export interface RepositoryCallCounts {
  list: number;
  get: number;
  listFiles: number;
  readFile: number;
}

/** A repository that forwards every call to another one and counts the reads, plus the counts. */
export interface CountingRepository {
  repository: SkillRepository;
  counts: RepositoryCallCounts;
  /** Sets every count back to zero (between the setup and the part a test measures). */
  reset(): void;
}

/**
 * Wraps `inner` so a test can assert how often a turn reads the repository: each `get` of a folder
 * repository reads the skill's folder again, so the counts are the cost of a step.
 */
export function createCountingRepository(inner: SkillRepository): CountingRepository {
  const counts: RepositoryCallCounts = { list: 0, get: 0, listFiles: 0, readFile: 0 };
  const repository: SkillRepository = {
    list: (context) => {
      counts.list += 1;
      return inner.list(context);
    },
    get: (name, context) => {
      counts.get += 1;
      return inner.get(name, context);
    },
    listFiles: (name, context) => {
      counts.listFiles += 1;
      return inner.listFiles(name, context);
    },
    readFile: (name, relativePath, context) => {
      counts.readFile += 1;
      return inner.readFile(name, relativePath, context);
    },
    report: () => inner.report(),
    refresh: () => inner.refresh(),
    ...(inner.generation !== undefined ? { generation: () => inner.generation?.() } : {}),
  };
  return {
    repository,
    counts,
    reset() {
      counts.list = 0;
      counts.get = 0;
      counts.listFiles = 0;
      counts.readFile = 0;
    },
  };
}
