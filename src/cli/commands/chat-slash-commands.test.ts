import { describe, expect, it } from 'vitest';
import { attachName, resolveHostPath } from './chat-attach.js';
import { savedName } from './chat-output-files.js';
import { describeSkillChange } from './chat-skill-watch.js';
import { slashHelp, splitWords } from './chat-slash-commands.js';

describe('chat slash command parts', () => {
  it('splits /attach arguments like a shell for quotes, and refuses an unclosed quote', () => {
    expect(splitWords(' "my file.csv"  as  \'q 1.csv\' ')).toEqual(['my file.csv', 'as', 'q 1.csv']);
    expect(splitWords('a""b ""')).toEqual(['ab', '']);
    expect(() => splitWords('"open')).toThrow('a " quote is not closed');
  });

  it('keeps attached names inside work/inputs and output names inside the output folder', () => {
    expect(attachName('data/q1.csv')).toBe('data/q1.csv');
    expect(() => attachName('data/../../x')).toThrow('has an empty, "." or ".." part');
    expect(savedName('out/reports/a.pdf')).toBe('reports/a.pdf');
    expect(savedName('work/x.txt')).toBe('work/x.txt');
    expect(() => savedName('out/../../x')).toThrow('has an empty, "." or ".." part');
    expect(() => savedName('/etc/passwd')).toThrow('is not a plain workspace-relative name');
  });

  it('reads ~ as the home folder and anything else against the chat folder', () => {
    expect(resolveHostPath('~/a.txt', '/work', '/home/me')).toBe('/home/me/a.txt');
    expect(resolveHostPath('a.txt', '/work', '/home/me')).toBe('/work/a.txt');
    expect(resolveHostPath('/abs/a.txt', '/work', '/home/me')).toBe('/abs/a.txt');
  });

  it('describes a change on disk in one line, and the help names every command', () => {
    expect(describeSkillChange({ added: ['a'], removed: [], changed: ['b', 'c'] })).toBe(
      'skillbox chat: skills changed on disk: added a; changed b, c (the next turn sees them)\n',
    );
    for (const command of ['/help', '/skills', '/skill NAME', '/model', '/attach PATH', '/quit']) {
      expect(slashHelp()).toContain(command);
    }
  });
});
