import { addSkills } from '../../hub/install/installer.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { gitTransportUsage, installerOptionsFor, installProgress, targetOptionsUsage } from '../hub-command-support.js';
import { parseCommandArguments } from '../parse-command-arguments.js';

const usage = `Usage: skillbox add SOURCE [--skill NAME]... [--to DIR] [--ref REF] [--link AGENT]... [--yes] [--deny-scripts]

Installs the skills of SOURCE into DIR and records them in skills-lock.json (the file the skills
CLI reads too). Every skill is checked (names, paths, sizes) and scanned before anything is
written; the scan is shown, and a skill with scripts, binaries, links, hidden or encoded content
is installed only after you say yes.

SOURCE is one of:
  ./path, /path, file:URL     a folder on this machine
  owner/repo[/path]           a GitHub repository (GITHUB_TOKEN for private ones and rate limits)
  https://host/x.git, git+https://..., ssh://..., git@host:x, git+file:///srv/x.git
                              any git repository; #ref and #ref:path pick a branch, tag or folder
                              (http:// and git:// need --allow-unencrypted-git)
  npm:package[@version]       an npm package (npm_config_registry for a mirror)
  https://example.com         a website's /.well-known/agent-skills index (http:// works too)
  marketplace:owner/repo[#plugin]  a Claude Code plugin marketplace on GitHub
  skills.sh/owner/repo[/skill]  a repository or skill listed on skills.sh
  clawhub:slug[@version]      a ClawHub skill
SKILLBOX_SOURCES (comma-separated: local, npm, marketplace, clawhub, skills-sh, git, well-known,
github) keeps only those.

Options:
  --skill NAME   install only this skill of SOURCE; repeat for several
  --ref REF      the branch, tag or version to install (sources that have refs)
  --link AGENT   also show the skills in AGENT's folder (the skills CLI's agent names:
                 claude-code -> .claude/skills, windsurf, cursor, ...) through a relative link;
                 repeat for several. A path there that skillbox did not make is never replaced.
  --link-mode M  symlink (default; a copy where links cannot be made) or copy
${targetOptionsUsage}
  --yes          accept the scan without asking (needed when standard input is not a terminal)
  --deny-scripts install only skills whose files are all of an inert type (Markdown, plain text and
                 data that are not code, images); refuse scripts, executables, binaries and the rest
${gitTransportUsage}

Exit status: 0 installed, 1 refused or failed (nothing is written then), 2 on bad usage.
`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArguments({
    args,
    options: {
      skill: { type: 'string', multiple: true, default: [] },
      to: { type: 'string' },
      lock: { type: 'string' },
      ref: { type: 'string' },
      link: { type: 'string', multiple: true, default: [] },
      'link-mode': { type: 'string' },
      yes: { type: 'boolean', short: 'y', default: false },
      'deny-scripts': { type: 'boolean', default: false },
      'allow-unencrypted-git': { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new CliUsageError('give exactly one SOURCE');
  const linkMode = values['link-mode'];
  if (linkMode !== undefined && linkMode !== 'symlink' && linkMode !== 'copy')
    throw new CliUsageError(`--link-mode must be symlink or copy, not ${JSON.stringify(linkMode)}`);
  const progress = installProgress(io, 'add');
  try {
    const installed = await addSkills(
      positionals[0] as string,
      {
        skills: values.skill ?? [],
        ...(values.ref === undefined ? {} : { ref: values.ref }),
        link: values.link ?? [],
        ...(linkMode === undefined ? {} : { linkMode }),
      },
      installerOptionsFor(
        io,
        'add',
        {
          to: values.to,
          lock: values.lock,
          yes: values.yes === true,
          denyScripts: values['deny-scripts'] === true,
          allowUnencryptedGit: values['allow-unencrypted-git'] === true,
        },
        progress.onProgress,
      ),
    );
    progress.done();
    for (const skill of installed) {
      io.stdout(`installed ${skill.name} -> ${skill.path}\n`);
      for (const link of skill.links) io.stdout(`  ${link.mode === 'symlink' ? 'linked' : 'copied'} ${link.path}\n`);
    }
    return 0;
  } finally {
    progress.done();
  }
}

export const addCommand: CliCommand = {
  name: 'add',
  usage,
  run,
};
