// Entry for the paging test: serves the skills of one root over stdio with a given skills/list page size.
import { FsSkillRepository } from '../../../repository/fs-skill-repository.js';
import { serveSkillsOverStdio } from '../stdio-server.js';

const [root, pageSize] = process.argv.slice(2);
await serveSkillsOverStdio({
  repository: await FsSkillRepository.open({ roots: [root as string] }),
  skillsPageSize: Number(pageSize),
});
