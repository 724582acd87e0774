/**
 * Programs that start other programs from their arguments (or from files the model can write):
 * an allow list holding one of them allows every command. The list is of well-known ones and
 * cannot be complete (any program may have an option that runs a helper); the sandbox, not the
 * allow list, is what confines a command; docs/workspaces.md (Command lists) says what the allow list promises.
 *
 * Each entry shows one way it runs another program, for the error message.
 */
const launchers: Record<string, string> = {
  // Shells and interpreters: running code is their job.
  sh: 'sh -c CMD', bash: 'bash -c CMD', dash: 'dash -c CMD', ash: 'ash -c CMD', zsh: 'zsh -c CMD', ksh: 'ksh -c CMD', mksh: 'mksh -c CMD',
  csh: 'csh -c CMD', tcsh: 'tcsh -c CMD', fish: 'fish -c CMD', rbash: 'rbash -c CMD', busybox: 'busybox sh -c CMD', toybox: 'toybox sh -c CMD',
  python: 'python -c "import os; os.system(...)"', pypy: 'pypy -c ...', perl: "perl -e 'system(...)'", ruby: "ruby -e 'system(...)'",
  php: "php -r 'system(...);'", lua: "lua -e 'os.execute(...)'", luajit: "luajit -e 'os.execute(...)'", node: 'node -e "require(\'child_process\')..."',
  nodejs: 'nodejs -e ...', deno: 'deno eval ...', bun: 'bun -e ...', tclsh: 'tclsh (exec from stdin)', wish: 'wish', expect: 'expect -c "spawn ..."',
  java: 'java a class from the workspace', jshell: 'jshell', dotnet: 'dotnet run', Rscript: "Rscript -e 'system(...)'", R: 'R -e ...', julia: 'julia -e "run(...)"',
  awk: 'awk \'BEGIN { system("...") }\'', gawk: 'gawk \'BEGIN { system("...") }\'', mawk: 'mawk \'BEGIN { system("...") }\'', nawk: 'nawk \'BEGIN { system("...") }\'',
  sed: "sed '1e CMD'", ed: 'ed (!CMD on stdin)', ex: 'ex +!CMD', vi: 'vi +!CMD', vim: "vim -es '+!CMD'", nvim: 'nvim +!CMD', view: 'view +!CMD', emacs: 'emacs --eval ...',
  m4: 'm4 (syscmd)', gdb: 'gdb -ex !CMD', lldb: 'lldb -o "platform shell CMD"',
  // Programs whose purpose is to start another program.
  env: 'env CMD', timeout: 'timeout 5 CMD', nice: 'nice CMD', nohup: 'nohup CMD', xargs: 'xargs CMD', stdbuf: 'stdbuf -o0 CMD', setsid: 'setsid CMD',
  flock: 'flock FILE CMD', script: 'script -c CMD', watch: 'watch CMD', time: 'time CMD', chroot: 'chroot / CMD', unshare: 'unshare CMD', nsenter: 'nsenter CMD',
  taskset: 'taskset 1 CMD', ionice: 'ionice CMD', chrt: 'chrt 0 CMD', prlimit: 'prlimit CMD', strace: 'strace CMD', ltrace: 'ltrace CMD', valgrind: 'valgrind CMD',
  sudo: 'sudo CMD', su: 'su -c CMD', doas: 'doas CMD', runuser: 'runuser -c CMD', sg: 'sg GROUP CMD', pkexec: 'pkexec CMD', 'run-parts': 'run-parts FOLDER',
  'start-stop-daemon': 'start-stop-daemon --exec CMD', 'systemd-run': 'systemd-run CMD', parallel: 'parallel CMD', bwrap: 'bwrap ... CMD', firejail: 'firejail CMD',
  at: 'at (commands on stdin)', batch: 'batch', crontab: 'crontab', 'xdg-open': 'xdg-open FILE', exec: 'exec CMD', command: 'command CMD',
  // Tools with an option or a file that runs a program.
  find: 'find . -exec CMD ;', tar: 'tar --to-command=CMD / --use-compress-program=CMD / --checkpoint-action=exec=CMD', sort: 'sort --compress-program=CMD',
  split: 'split --filter=CMD', zip: 'zip -TT CMD', git: 'git -c core.pager=CMD / -c alias.x=!CMD', make: 'make (recipes run commands)', gmake: 'gmake',
  cmake: 'cmake -P script / -E', ninja: 'ninja (build.ninja runs commands)', meson: 'meson', ssh: 'ssh -o ProxyCommand=CMD', scp: 'scp -S CMD', sftp: 'sftp -S CMD',
  rsync: 'rsync -e CMD', wget: 'wget --use-askpass=CMD', less: "less '+!CMD'", more: 'more (!CMD)', most: 'most', man: 'man -P CMD', pager: 'pager (!CMD)',
  dpkg: 'dpkg --pre-invoke=CMD', apt: 'apt -o APT::Update::Pre-Invoke::=CMD', 'apt-get': 'apt-get -o APT::Update::Pre-Invoke::=CMD', pip: 'pip install ./package (setup.py)',
  pip3: 'pip3 install ./package', npm: 'npm exec CMD', npx: 'npx CMD', yarn: 'yarn exec CMD', pnpm: 'pnpm exec CMD', docker: 'docker run', podman: 'podman run',
  kubectl: 'kubectl exec', openssl: 'openssl -engine /path/to/code.so', tmux: 'tmux new CMD', screen: 'screen CMD', nc: 'nc -e CMD', ncat: 'ncat -e CMD', socat: 'socat EXEC:CMD',
};

/** Versioned names of the same interpreters: python3, python3.11, perl5.36.0, lua5.4, tclsh8.6, ... */
const versioned = /^(python|pypy|perl|ruby|php|lua|luajit|tclsh|wish|node|pip|gawk)[\d.]*(?:-config)?$/;

/**
 * How `name` (a program's file name) runs other programs, or undefined when it is not a known
 * launcher. Both the name given and the name of the file it links to are worth asking about.
 */
export function launcherExample(name: string): string | undefined {
  const direct = launchers[name];
  if (direct !== undefined) return direct;
  const family = versioned.exec(name)?.[1];
  return family === undefined ? undefined : launchers[family];
}
