/**
 * What runs a file of each extension: interpreters, and compilers or runners that take a source
 * file as it is (`go run main.go`, `java Main.java`, `rustc`). A skill's text is meant to be read;
 * a file of one of these kinds is meant to be run, by the model's command or by a person following
 * the skill.
 */
const runnerByExtension: Readonly<Record<string, string>> = {
  sh: 'sh',
  bash: 'bash',
  zsh: 'zsh',
  ksh: 'ksh',
  csh: 'csh',
  tcsh: 'tcsh',
  fish: 'fish',
  dash: 'dash',
  command: 'sh (macOS .command)',
  py: 'python',
  pyw: 'python (windowed)',
  pyz: 'python (zip application)',
  ipynb: 'Jupyter (notebook code cells)',
  js: 'node',
  mjs: 'node',
  cjs: 'node',
  jsx: 'node (JSX)',
  ts: 'node (TypeScript)',
  mts: 'node (TypeScript)',
  cts: 'node (TypeScript)',
  tsx: 'node (TypeScript JSX)',
  coffee: 'coffee',
  rb: 'ruby',
  rake: 'ruby (rake)',
  gemspec: 'ruby',
  pl: 'perl',
  pm: 'perl',
  raku: 'raku',
  php: 'php',
  phtml: 'php',
  phar: 'php (archive)',
  ps1: 'powershell',
  psm1: 'powershell',
  bat: 'cmd',
  cmd: 'cmd',
  vbs: 'Windows Script Host',
  vbe: 'Windows Script Host',
  wsf: 'Windows Script Host',
  hta: 'mshta',
  lua: 'lua',
  r: 'Rscript',
  jl: 'julia',
  go: 'go run',
  rs: 'rustc',
  java: 'java',
  kt: 'kotlin',
  kts: 'kotlin script',
  scala: 'scala',
  groovy: 'groovy',
  gradle: 'gradle',
  swift: 'swift',
  c: 'a C compiler',
  cc: 'a C++ compiler',
  cpp: 'a C++ compiler',
  cxx: 'a C++ compiler',
  cs: 'dotnet (C#)',
  csx: 'dotnet script (C#)',
  fsx: 'dotnet fsi (F#)',
  vb: 'dotnet (Visual Basic)',
  erl: 'erlang',
  escript: 'escript',
  ex: 'elixir',
  exs: 'elixir',
  hs: 'runghc',
  ml: 'ocaml',
  clj: 'clojure',
  cljs: 'clojurescript',
  el: 'emacs',
  scm: 'scheme',
  rkt: 'racket',
  lisp: 'lisp',
  tcl: 'tclsh',
  awk: 'awk',
  sed: 'sed',
  nu: 'nushell',
  xsh: 'xonsh',
  applescript: 'osascript',
  scpt: 'osascript',
  ahk: 'AutoHotkey',
  nim: 'nim',
  zig: 'zig',
  dart: 'dart',
  cr: 'crystal',
  mk: 'make',
  cmake: 'cmake',
  bzl: 'bazel',
  nix: 'nix',
  desktop: 'a desktop launcher (Exec=)',
};

/** Files known by their whole name: build and task files a tool runs when started in their folder. */
const runnerByFileName: Readonly<Record<string, string>> = {
  makefile: 'make',
  gnumakefile: 'make',
  dockerfile: 'docker build',
  containerfile: 'podman build',
  justfile: 'just',
  rakefile: 'ruby (rake)',
  gemfile: 'ruby (bundler)',
  vagrantfile: 'ruby (vagrant)',
  jenkinsfile: 'groovy (Jenkins)',
  brewfile: 'ruby (brew bundle)',
  sconstruct: 'python (scons)',
  sconscript: 'python (scons)',
  snakefile: 'python (snakemake)',
  'cmakelists.txt': 'cmake',
  'meson.build': 'meson',
  build: 'bazel',
  'build.bazel': 'bazel',
  workspace: 'bazel',
  procfile: 'a process manager',
  'taskfile.yml': 'task',
  'taskfile.yaml': 'task',
  '.envrc': 'direnv (shell)',
};

/** The extension of a path's last segment, lowercased; empty for none or a dot file. */
export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** What runs a file by its name alone (extension or whole name), or undefined when its name says nothing. */
export function runnerOfName(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  return runnerByFileName[name] ?? runnerByExtension[extensionOf(path)];
}

/** The interpreter a `#!` line names (`env python3` gives `python3`), or undefined without one. */
export function shebangInterpreter(text: string): string | undefined {
  const match = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
  if (match === null) return undefined;
  const program = match[1] as string;
  const base = program.slice(program.lastIndexOf('/') + 1);
  return base === 'env' && match[2] !== undefined ? match[2] : base;
}

/** The lifecycle and named scripts of an npm `package.json` (`npm install` runs some by itself). */
export function npmScriptNames(text: string): string[] {
  try {
    const parsed = JSON.parse(text) as { scripts?: unknown };
    if (typeof parsed?.scripts !== 'object' || parsed.scripts === null) return [];
    return Object.keys(parsed.scripts);
  } catch {
    return [];
  }
}
