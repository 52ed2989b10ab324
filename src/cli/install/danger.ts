/**
 * The dangerous patterns SEP-1024 asks an installer to highlight, found in a server's command
 * line: privilege escalation (`sudo`, `doas`, `su`, `pkexec`, `runas`), a shell or interpreter
 * given a script inline (`sh -c`, `cmd /c`, `powershell -Command`, `node -e`, `python -c`),
 * download-and-run (`curl … | sh`, `wget -O- … |`, `iex (iwr …)`, `bash <(curl …)`),
 * destructive commands (`rm -rf`, `mkfs`, `dd of=/dev/…`, `format`, `Remove-Item -Recurse`), and
 * runners that download a package and run it each time the server starts (`npx`, `npm exec`,
 * `pnpm dlx`, `yarn dlx`, `bunx`, `uvx`, `uv tool run`, `pipx run`, `docker run`, ...), with the
 * package they fetch and whether its version is pinned.
 *
 * This is a warning aid, not a sandbox: it reads the command line as the client will run it
 * (command words, then the text of inline scripts) and may flag harmless lines; a clean result
 * never means the command is safe, and the screen says so.
 */

/** One finding, shown as a `DANGER:` line on the consent screen. */
export interface Danger {
  kind: 'privilege' | 'shell' | 'download-run' | 'destructive' | 'runner';
  /** What it does, for people. */
  text: string;
}

/** The findings for a command line, and whether a shell or interpreter runs inline code. */
export interface CommandAnalysis {
  dangers: Danger[];
  /** The inline scripts found (the argument after `-c`, `/c`, `-e`, ...). */
  scripts: string[];
  /** Script words still to look at: scripts inside scripts are looked at up to this budget. */
  budget: number;
}

/** Most script words looked at for one command line (nested scripts count again). */
const SCRIPT_WORD_BUDGET = 200_000;

const ESCALATORS = new Set(['sudo', 'doas', 'su', 'pkexec', 'runas', 'gsudo', 'run0', 'sudo-rs']);
/** Wrappers that run the rest of the line as another command. */
const WRAPPERS = new Set([
  'env',
  'nohup',
  'nice',
  'ionice',
  'timeout',
  'stdbuf',
  'setsid',
  'exec',
  'command',
  'xargs',
  'chroot',
  'time',
  'caffeinate',
  'start',
]);
/** Shells and interpreters, with the flags that take an inline script. */
const INLINE: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ...['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox'].map((s): [string, readonly string[]] => [s, ['-c']]),
  ['cmd', ['/c', '/k', '/r']],
  ['powershell', ['-c', '-command', '-encodedcommand', '-e', '-ec']],
  ['pwsh', ['-c', '-command', '-encodedcommand', '-e', '-ec']],
  ['node', ['-e', '--eval', '-p', '--print']],
  ['nodejs', ['-e', '--eval', '-p', '--print']],
  ['deno', ['eval']],
  ['bun', ['-e', '--eval']],
  ...['python', 'python3', 'pythonw', 'py', 'pypy', 'pypy3'].map((s): [string, readonly string[]] => [s, ['-c']]),
  ['perl', ['-e', '-E']],
  ['ruby', ['-e']],
  ['php', ['-r']],
  ['osascript', ['-e']],
  ['lua', ['-e']],
]);

/** The program name of a word: its last path part, lower case, without a Windows extension or a version suffix. */
export function programName(word: string): string {
  const base = word
    .replace(/^['"]+|['"]+$/g, '')
    .split(/[\\/]/)
    .pop()!
    .toLowerCase()
    .replace(/\.(exe|cmd|bat|com|ps1)$/, '');
  return /^python3?(\.\d+)?$/.test(base) ? base.replace(/\.\d+$/, '') : base;
}

/** Finds the dangerous patterns in `command args...` (see the module note). */
export function analyzeCommand(command: string, args: readonly string[]): CommandAnalysis {
  const found: CommandAnalysis = { dangers: [], scripts: [], budget: SCRIPT_WORD_BUDGET };
  checkCommand([command, ...args], 0, found, 0, false);
  return found;
}

type Add = (kind: Danger['kind'], text: string) => void;

function adder(found: CommandAnalysis): Add {
  return (kind, text) => {
    if (!found.dangers.some((d) => d.text === text)) found.dangers.push({ kind, text });
  };
}

/** Shell words that end a command (the next word is a command again). */
const SEPARATOR = /^(\|\||&&|[|;&\n()`]|\$\(|<\()$/;
const FETCHERS = new Set(['curl', 'wget', 'fetch', 'iwr', 'irm', 'invoke-webrequest', 'invoke-restmethod', 'aria2c', 'http', 'xh']);
const SHELLS_AND_INTERPRETERS = new Set([...INLINE.keys(), 'iex', 'invoke-expression', 'source', '.']);
const INTERPRETERS = new Set([
  'node',
  'nodejs',
  'deno',
  'bun',
  'python',
  'python3',
  'pythonw',
  'py',
  'pypy',
  'pypy3',
  'perl',
  'ruby',
  'php',
  'osascript',
  'lua',
]);
const MAX_SCRIPT_DEPTH = 4;

/**
 * Splits a shell script into words and separators, in one linear pass; quotes are not
 * interpreted (a quoted word keeps its quote characters, which {@link programName} drops),
 * so a script inside a script is still seen.
 */
function tokenize(script: string): string[] {
  return script.split(/(\|\||&&|[|;&\n()`]|\$\(|<\()|\s+/).filter((t) => t !== undefined && t !== '');
}

/** Looks at the command starting at `words[at]` (and, in a script, every later command). */
function checkCommand(words: readonly string[], at: number, found: CommandAnalysis, depth: number, script: boolean): void {
  const add = adder(found);
  let i = at;
  for (let guard = 0; i < words.length && guard < 64; guard++) {
    const name = programName(words[i]!);
    if (ESCALATORS.has(name)) {
      add('privilege', `runs as another user (usually root) through ${name}: it can change anything on this machine`);
      if (name === 'su') {
        const c = indexInCommand(words, i, (w) => w === '-c' || w === '--command');
        if (c >= 0 && c + 1 < words.length) inlineScript(words[c + 1]!, 'su -c', found, depth);
        return;
      }
      i = skipOptions(words, i + 1, name === 'sudo' || name === 'doas' ? /^-[ugCDhprtTU]$/ : /^$/);
      continue;
    }
    if (WRAPPERS.has(name)) {
      if (name === 'env') {
        // env -S 'command words': the string is split into the command line that runs
        const split = indexInCommand(words, i, (w) => /^(-[a-zA-Z]*S|--split-string(=|$))/.test(stripQuotes(w)));
        if (split >= 0) {
          const w = stripQuotes(words[split]!);
          const attached = w.startsWith('--') ? w.slice(w.indexOf('=') + 1) : w.slice(w.indexOf('S') + 1);
          const line = w.includes('=') || (attached !== '' && !w.startsWith('--')) ? attached : words[split + 1];
          if (line !== undefined && found.budget > 0) commandLine(line, found, depth);
        }
      }
      i = skipOptions(words, i + 1, /^-[ksSuC]$/);
      if (name === 'timeout' && i < words.length && /^\d/.test(words[i]!)) i++;
      continue;
    }
    break;
  }
  if (i >= words.length) return;
  const name = programName(words[i]!);
  const inline = findInline(name, words, i);
  if (inline !== undefined) {
    const { at: f, attached } = inline;
    if (attached !== undefined || f + 1 < words.length) {
      // in a script the words are not unquoted: the inline script is the rest of the command
      const takesRest = script || name === 'cmd' || name === 'powershell' || name === 'pwsh';
      const flag = stripQuotes(words[f]!);
      add(
        'shell',
        `${INTERPRETERS.has(name) ? 'an interpreter' : 'a shell'} runs the inline script given with ${name} ${attached === undefined ? flag : flag.slice(0, flag.length - attached.length)}: everything that script does runs too`,
      );
      const rest = takesRest ? words.slice(f + 1, script ? f + 65 : undefined).join(' ') : (words[f + 1] ?? '');
      const text = attached === undefined ? rest : takesRest ? `${attached} ${rest}` : attached;
      if (found.budget > 0) inlineScript(text, `${name} ${flag}`, found, depth);
      else add('shell', 'the inline script is too long to check completely: read all of it before you agree');
    }
  }
  if (FETCHERS.has(name)) {
    // bounded look-ahead: a pipeline of a few stages
    for (let j = i + 1; j < Math.min(words.length, i + 64) && !/^(\|\||&&|[;&\n)`])$/.test(words[j]!); j++) {
      if (words[j] !== '|') continue;
      if (FETCHERS.has(programName(words[j + 1] ?? ''))) break; // that download is looked at on its own
      let k = j + 1;
      while (k < words.length && ESCALATORS.has(programName(words[k]!))) k = skipOptions(words, k + 1, /^-[ugCDhprtTU]$/);
      if (k < words.length && SHELLS_AND_INTERPRETERS.has(programName(words[k]!))) {
        add('download-run', `downloads code and runs it (${name} … | ${programName(words[k]!)}): what runs is whatever that server sends at that moment`);
      }
    }
    if (name === 'wget' && indexInCommand(words, i, (w) => /^(-q?O-?|--output-document=-|-qO-|-O-)$/.test(stripQuotes(w))) >= 0) {
      const o = indexInCommand(words, i, (w) => /^-q?O$/.test(stripQuotes(w)));
      if (o < 0 || stripQuotes(words[o + 1] ?? '') === '-' || indexInCommand(words, i, (w) => /^(-q?O-|--output-document=-)$/.test(stripQuotes(w))) >= 0)
        add('download-run', 'downloads a file to standard output (wget -O-), usually to run it');
    }
    if (i > 0 && /^(\$\(|`|<\()$/.test(words[i - 1]!))
      add('download-run', `downloads code and runs it (the output of ${name} used as a script): what runs is whatever that server sends at that moment`);
  }
  if (name === 'iex' || name === 'invoke-expression') add('download-run', 'runs text as PowerShell code (iex / Invoke-Expression), often code just downloaded');
  destructive(words, i, add);
  runner(words, i, add);
}

/** PowerShell parameters that take a value (any unambiguous prefix is accepted by PowerShell). */
const PS_VALUE_PARAMS = [
  '-executionpolicy',
  '-windowstyle',
  '-outputformat',
  '-inputformat',
  '-configurationname',
  '-version',
  '-psconsolefile',
  '-workingdirectory',
  '-settingsfile',
  '-custompipename',
];

/**
 * Where the inline script of `words[at]` (a shell or interpreter) is: the word holding the
 * flag, and the script text when it is attached to that word. Reads the forms these programs
 * accept: a short flag inside a cluster (`bash -lc`, `perl -le`, `node -pe`), attached
 * (`python -cCODE`, `cmd /cCODE`, `node --eval=CODE`), PowerShell's parameter prefixes
 * (`-Comm`, `-enc`, `/Command`) and Windows PowerShell's positional command.
 */
function findInline(name: string, words: readonly string[], at: number): { at: number; attached?: string } | undefined {
  const flags = INLINE.get(name);
  if (flags === undefined) return undefined;
  const powershell = name === 'powershell' || name === 'pwsh';
  for (let j = at + 1; j < words.length && !SEPARATOR.test(words[j]!); j++) {
    const raw = stripQuotes(words[j]!);
    const w = raw.toLowerCase();
    if (flags.includes(w)) return { at: j };
    if (powershell) {
      const p = w.replace(/^(--|\/)/, '-');
      if (p.length >= 2 && ('-command'.startsWith(p) || '-encodedcommand'.startsWith(p) || p === '-ec')) return { at: j };
      if (/^-f(i(le?)?)?$/.test(p)) return undefined; // a script file
      if (p.startsWith('-')) {
        if (PS_VALUE_PARAMS.some((v) => p.length >= 3 && v.startsWith(p))) j++;
        continue;
      }
      // Windows PowerShell runs its first positional argument as a command (pwsh as a file)
      return name === 'powershell' ? { at: j, attached: words.slice(j).join(' ') } : undefined;
    }
    if (name === 'cmd') {
      if (/^\/[ckr]./.test(w)) return { at: j, attached: raw.slice(2) };
      continue;
    }
    const eq = flags.find((f) => f.startsWith('--') && w.startsWith(`${f}=`));
    if (eq !== undefined) return { at: j, attached: raw.slice(eq.length + 1) };
    // a cluster of short options: the script follows the flag letter (attached) or is the next word
    if (/^-[a-z0-9]{2,}/i.test(raw)) {
      const letters = flags.filter((f) => /^-[a-z]$/i.test(f)).map((f) => f[1]!);
      // `-pe`, `-le`, `-lc`: letters only, ending with the flag: the script is the next word
      if (/^-[a-z]+$/i.test(raw) && letters.includes(raw[raw.length - 1]!)) return { at: j };
      const k = [...raw.slice(1)].findIndex((c) => letters.includes(c));
      if (k >= 0) return INLINE_SHELLS.has(name) ? { at: j } : { at: j, attached: raw.slice(k + 2) };
    }
  }
  return undefined;
}

const INLINE_SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox']);

/** Looks at a command line given as one string (`env -S`), word by word. */
function commandLine(text: string, found: CommandAnalysis, depth: number): void {
  if (depth >= MAX_SCRIPT_DEPTH) return;
  const words = tokenize(text);
  found.budget -= words.length;
  for (let j = 0; j < words.length; j++) {
    if (!SEPARATOR.test(words[j]!) && (j === 0 || SEPARATOR.test(words[j - 1]!))) checkCommand(words, j, found, depth + 1, true);
  }
}

function inlineScript(text: string, how: string, found: CommandAnalysis, depth: number): void {
  found.scripts.push(text);
  if (/:\(\)\{:\|:&\};:/.test(text.replace(/\s+/g, ''))) adder(found)('destructive', 'damages the system (a fork bomb)');
  if (/downloadstring\s*\(|downloadfile\s*\(/i.test(text)) adder(found)('download-run', `downloads code in the script given with ${how}`);
  if (depth >= MAX_SCRIPT_DEPTH) return;
  if (found.budget <= 0 || text.length > found.budget * 8) {
    adder(found)('shell', 'the inline script is too long to check completely: read all of it before you agree');
    return;
  }
  const words = tokenize(text);
  found.budget -= words.length;
  // every command of the script: the first word, and each word after a separator
  for (let j = 0; j < words.length; j++) {
    if (!SEPARATOR.test(words[j]!) && (j === 0 || SEPARATOR.test(words[j - 1]!))) checkCommand(words, j, found, depth + 1, true);
  }
  downloadThenRun(words, adder(found));
}

/**
 * Download-and-run in two steps: a fetcher saves a file (`curl -o x.sh URL`, `curl -O
 * URL/x.sh`, `wget URL/x.sh`, `iwr URL -OutFile x.ps1`) and a later command of the script runs
 * it (`sh x.sh`, `./x.sh`, `python x.py`, `& .\x.ps1`). One linear pass.
 */
function downloadThenRun(words: readonly string[], add: Add): void {
  const saved = new Set<string>();
  const base = (w: string): string => stripQuotes(w).split(/[\\/]/).pop()!.toLowerCase();
  let start = 0;
  for (let j = 0; j <= words.length; j++) {
    if (j < words.length && !SEPARATOR.test(words[j]!)) continue;
    const command = words.slice(start, j);
    start = j + 1;
    if (command.length === 0) continue;
    const name = programName(command[0]!);
    if (FETCHERS.has(name)) {
      const remoteName = name === 'wget' || command.some((c) => /^(-O|--remote-name)$/.test(stripQuotes(c)));
      for (let k = 1; k < command.length; k++) {
        const w = stripQuotes(command[k]!);
        if (/^(-o|--output|-outfile|--output-document|-O)$/i.test(w) && !(name === 'curl' && w === '-O') && k + 1 < command.length)
          saved.add(base(command[k + 1]!));
        else if (/^(--output|--output-document)=/.test(w)) saved.add(base(w.slice(w.indexOf('=') + 1)));
        else if (/^https?:\/\//i.test(w) && remoteName) saved.add(base(w.replace(/[?#].*$/, '')));
      }
      continue;
    }
    if (saved.size === 0) continue;
    // a shell or interpreter runs its first operand (the words after it are the script's arguments)
    const script = command.slice(1).find((w) => !stripQuotes(w).startsWith('-'));
    const runsSaved = saved.has(base(command[0]!)) || (SHELLS_AND_INTERPRETERS.has(name) && script !== undefined && saved.has(base(script)));
    if (runsSaved) add('download-run', `downloads a file and then runs it (${name}): what runs is whatever that server sends at that moment`);
  }
}

/** The index of the first word after `at` and before the end of its command that matches. */
function indexInCommand(words: readonly string[], at: number, match: (word: string) => boolean): number {
  for (let j = at + 1; j < words.length && !SEPARATOR.test(words[j]!); j++) if (match(words[j]!)) return j;
  return -1;
}

function stripQuotes(word: string): string {
  return word.replace(/^['"]+|['"]+$/g, '');
}

function destructive(words: readonly string[], at: number, add: Add): void {
  const name = programName(words[at]!);
  const options: string[] = [];
  for (let j = at + 1; j < words.length && !SEPARATOR.test(words[j]!) && options.length < 256; j++) options.push(stripQuotes(words[j]!).toLowerCase());
  if (name === 'rm' && options.some((o) => /^-[a-z]*r/i.test(o) || o === '--recursive')) add('destructive', 'deletes files recursively (rm -r)');
  if (/^(mkfs(\..+)?|shred|wipefs|fdisk|sfdisk|parted|diskpart|mke2fs)$/.test(name)) add('destructive', `overwrites disks or files beyond recovery (${name})`);
  if (name === 'dd' && options.some((o) => o.startsWith('of=/dev/'))) add('destructive', 'overwrites a disk (dd of=/dev/...)');
  if (
    (name === 'remove-item' || name === 'ri' || name === 'rmdir' || name === 'rd' || name === 'del' || name === 'erase') &&
    options.some((o) => o === '-recurse' || o === '/s' || o === '-r')
  )
    add('destructive', `deletes files recursively (${name} ${options.find((o) => o === '-recurse' || o === '/s' || o === '-r')})`);
  if (name === 'format' && options.some((o) => /^[a-z]:$/.test(o))) add('destructive', 'formats a disk (format)');
  if ((name === 'chmod' || name === 'chown') && options.includes('/')) add('destructive', `changes permissions of the whole system (${name} ... /)`);
  if (
    options.some(
      (o, k) => /^\d?>+\/dev\/(sd|nvme|hd|disk|mmcblk)/.test(o) || (/^\d?>+$/.test(o) && /^\/dev\/(sd|nvme|hd|disk|mmcblk)/.test(options[k + 1] ?? '')),
    )
  )
    add('destructive', 'overwrites a disk (> /dev/...)');
}

function skipOptions(words: readonly string[], from: number, takesValue: RegExp): number {
  let i = from;
  while (i < words.length) {
    const w = words[i]!;
    if (w === '--') return i + 1;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w))
      i++; // env NAME=value
    else if (w.startsWith('-')) i += takesValue.test(w) ? 2 : 1;
    else break;
  }
  return i;
}

/** Auto-installing runners: the package they fetch, and whether its version is pinned. */
function runner(words: readonly string[], at: number, add: Add): void {
  const name = programName(words[at]!);
  const sub = words[at + 1]?.toLowerCase();
  let rest: number | undefined;
  let registry = '';
  let valueFlags = /^$/;
  let packageFlag: RegExp | undefined;
  if (
    name === 'npx' ||
    name === 'pnpx' ||
    name === 'bunx' ||
    (name === 'npm' && (sub === 'exec' || sub === 'x')) ||
    ((name === 'pnpm' || name === 'yarn') && sub === 'dlx') ||
    (name === 'bun' && sub === 'x')
  ) {
    rest = name === 'npx' || name === 'pnpx' || name === 'bunx' ? at + 1 : at + 2;
    registry = 'npm';
    valueFlags = /^(-p|--package|--registry|--cache|-c|--call|--userconfig)$/;
    packageFlag = /^(-p|--package)(=|$)/;
  } else if (name === 'uvx' || (name === 'uv' && sub === 'tool' && words[at + 2] === 'run')) {
    rest = name === 'uvx' ? at + 1 : at + 3;
    registry = 'PyPI';
    valueFlags = /^(--from|--with|--index|--index-url|--default-index|--extra-index-url|--python|-p|--with-requirements|--constraints|-c)$/;
    packageFlag = /^--from(=|$)/;
  } else if (name === 'pipx' && sub === 'run') {
    rest = at + 2;
    registry = 'PyPI';
    valueFlags = /^(--spec|--index-url|-i|--python|--pip-args)$/;
    packageFlag = /^--spec(=|$)/;
  } else if ((name === 'docker' || name === 'podman' || name === 'nerdctl') && sub === 'run') {
    rest = at + 2;
    registry = 'a container registry';
    valueFlags =
      /^(-e|--env|-v|--volume|--name|-p|--publish|-u|--user|-w|--workdir|--network|--entrypoint|--env-file|--mount|--platform|--pull|-l|--label|--add-host|--cap-add|--device)$/;
  } else if (name === 'dnx' || (name === 'dotnet' && sub === 'dnx')) {
    rest = name === 'dnx' ? at + 1 : at + 2;
    registry = 'NuGet';
    valueFlags = /^(--version|--source|--add-source)$/;
  } else if (name === 'go' && sub === 'run') {
    // `go run module/path@version` downloads that module and runs it
    const spec = words.slice(at + 2).find((w) => !w.startsWith('-') && w.includes('@'));
    if (spec !== undefined)
      add('runner', `downloads the Go module ${spec} and runs it each time the server starts (go run)${pinned(spec) ? '' : ', version not pinned'}`);
    return;
  } else if ((name === 'nix' && (sub === 'run' || sub === 'shell')) || name === 'nix-shell') {
    const spec = words.slice(name === 'nix' ? at + 2 : at + 1).find((w) => !w.startsWith('-'));
    if (spec !== undefined) add('runner', `fetches ${spec} and runs it each time the server starts (${name}${name === 'nix' ? ` ${sub}` : ''})`);
    return;
  } else if (name === 'uv' && sub === 'run') {
    // uv run --with PKG downloads PKG (from PyPI) into the environment the command runs in
    for (let j = at + 2; j < words.length && !SEPARATOR.test(words[j]!); j++) {
      const w = stripQuotes(words[j]!);
      const spec = /^--with(=|$)/.test(w) ? (w.includes('=') ? w.slice(7) : words[j + 1]) : undefined;
      if (spec !== undefined)
        add(
          'runner',
          `downloads the package ${spec} from PyPI and runs the command with it each time the server starts (uv run --with)${pinned(spec) ? '' : ', version not pinned'}`,
        );
    }
    return;
  } else if (name === 'deno' && sub === 'run') {
    const spec = words.slice(at + 2).find((w) => /^(npm:|jsr:|https?:)/.test(w));
    if (spec !== undefined) add('runner', `fetches and runs ${spec} each time it starts (deno run)${pinned(spec) ? '' : ', version not pinned'}`);
    return;
  } else {
    return;
  }
  let spec: string | undefined;
  let yes = false;
  for (let i = rest; i < words.length; i++) {
    const w = stripQuotes(words[i]!);
    if (SEPARATOR.test(words[i]!)) break;
    if (w === '--') {
      spec ??= words[i + 1];
      break;
    }
    if (w === '-y' || w === '--yes') yes = true;
    if (packageFlag?.test(w)) spec = w.includes('=') ? w.slice(w.indexOf('=') + 1) : words[i + 1];
    if (w.startsWith('-')) {
      if (valueFlags.test(w)) i++;
      continue;
    }
    spec ??= w;
    break;
  }
  if (spec === undefined) return;
  const how = registry === 'npm' ? `${programName(words[at]!)}${yes ? ' -y: without asking' : ''}` : programName(words[at]!);
  add(
    'runner',
    `downloads the package ${spec} from ${registry} and runs it each time the server starts (${how})${pinned(spec) ? '' : ', version not pinned: you get whatever is published then'}`,
  );
}

/** True when a package spec names an exact version (`pkg@1.2.3`, `pkg==1.2.3`, `image@sha256:…`, `image:1.2.3`). */
function pinned(spec: string): boolean {
  return /@sha256:[0-9a-f]{64}$/.test(spec) || /(^@?[^@]+@|==)v?\d+\.\d+\.\d+([-+][\w.]+)?$/.test(spec) || /^[^@/:]+(\/[^@:/]+)*:v?\d+\.\d+\.\d+$/.test(spec);
}
