import { createRequire } from 'node:module';

type YamlLibrary = typeof import('yaml');

let loaded: YamlLibrary | undefined;

/**
 * The `yaml` library, loaded on first use. The fast frontmatter reader answers most SKILL.md files
 * without it, and loading it is 72 modules at start-up, paid by every `import('skillbox')` that
 * never meets a frontmatter the fast reader declines. Loaded with `require`: on Node, `yaml`
 * resolves to its CommonJS build for `import` as well, so this is the same code, only later.
 */
export function yamlLibrary(): YamlLibrary {
  loaded ??= createRequire(import.meta.url)('yaml') as YamlLibrary;
  return loaded;
}
