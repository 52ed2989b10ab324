/**
 * Environment variables that change which code a process runs, loads or downloads, in one
 * table. The consent screen and `installed` show such a variable's value in full (never
 * masked, even when its name contains PASS or TOKEN, as `GIT_ASKPASS` does) and flag it,
 * since an install link can use one to run code while the command itself looks harmless.
 *
 * Names are compared in upper case: Windows treats environment names case-insensitively, so
 * `node_options` and `Path` count too.
 */

/** One row: a pattern for the upper-cased name, and what the variable does. */
export interface CodeEnvRow {
  /** Matches the whole upper-cased name. */
  pattern: RegExp;
  /** Shown after the value: what setting it does. */
  effect: string;
}

const RUNS = 'names a program that runs';
const LOADS = 'loads code into the program';
const SOURCE = 'changes where packages are downloaded from';

/** Every variable that changes which code runs; one row each (or one per family). */
export const CODE_ENV: readonly CodeEnvRow[] = [
  // where programs are found
  { pattern: /^PATH$/, effect: 'changes which programs are found' },
  { pattern: /^PATHEXT$/, effect: 'changes which files Windows runs as programs' },
  { pattern: /^COMSPEC$/, effect: 'names the shell Windows runs commands with' },
  // dynamic loaders
  { pattern: /^LD_[A-Z0-9_]+$/, effect: LOADS },
  { pattern: /^DYLD_[A-Z0-9_]+$/, effect: LOADS },
  {
    pattern: /^(GCONV_PATH|GLIBC_TUNABLES|OPENSSL_CONF|OPENSSL_ENGINES|OPENSSL_MODULES|GIO_EXTRA_MODULES|GTK_PATH|QT_PLUGIN_PATH)$/,
    effect: 'loads libraries or modules into the program',
  },
  // configuration files that can name programs to run (.npmrc, .gitconfig, shell start-up files)
  {
    pattern: /^(HOME|USERPROFILE|APPDATA|LOCALAPPDATA|XDG_CONFIG_HOME|XDG_CONFIG_DIRS)$/,
    effect: 'changes which configuration files are read (they can name programs to run)',
  },
  // programs run on the process's behalf
  { pattern: /^[A-Z0-9_]*_ASKPASS$/, effect: RUNS },
  { pattern: /^SSH_ASKPASS_REQUIRE$/, effect: 'makes ssh run its askpass program' },
  { pattern: /^(EDITOR|VISUAL|PAGER|BROWSER|SHELL)$/, effect: RUNS },
  { pattern: /^GIT_(SSH|SSH_COMMAND|EDITOR|PAGER|EXTERNAL_DIFF|PROXY_COMMAND|SEQUENCE_EDITOR)$/, effect: RUNS },
  { pattern: /^([A-Z0-9_]+EDITOR|FCEDIT|[A-Z0-9_]+PAGER|LESSOPEN|LESSCLOSE|TERMINAL)$/, effect: RUNS },
  { pattern: /^GIT_(EXEC_PATH|TEMPLATE_DIR|DIR|WORK_TREE)$/, effect: 'changes which git hooks and helpers run' },
  { pattern: /^GIT_CONFIG(_PARAMETERS|_COUNT|_KEY_\d+|_VALUE_\d+|_GLOBAL|_SYSTEM)?$/, effect: 'sets git configuration (which can name programs to run)' },
  // shells
  { pattern: /^(BASH_ENV|ENV|ZDOTDIR|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|IFS)$/, effect: 'changes what the shell runs' },
  { pattern: /^BASH_FUNC_.+$/, effect: 'defines a shell function' },
  // language runtimes
  { pattern: /^(NODE_OPTIONS|NODE_PATH|NODE_REPL_EXTERNAL_MODULE|ELECTRON_RUN_AS_NODE)$/, effect: LOADS },
  { pattern: /^PYTHON(PATH|STARTUP|HOME|USERBASE|EXECUTABLE|INSPECT|BREAKPOINT|PLATLIBDIR|WARNINGS)$/, effect: LOADS },
  { pattern: /^(PERL5OPT|PERL5LIB|PERLLIB|PERL5DB|PERL_MB_OPT|PERL_MM_OPT)$/, effect: LOADS },
  { pattern: /^(RUBYOPT|RUBYLIB|GEM_HOME|GEM_PATH|BUNDLE_GEMFILE)$/, effect: LOADS },
  { pattern: /^(JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|JAVA_OPTS|MAVEN_OPTS|GRADLE_OPTS|SBT_OPTS|ANT_OPTS|CLASSPATH|JAVA_HOME)$/, effect: LOADS },
  { pattern: /^(DOTNET_STARTUP_HOOKS|DOTNET_ADDITIONAL_DEPS|DOTNET_SHARED_STORE|DOTNET_ROOT)$/, effect: LOADS },
  { pattern: /^(CORECLR|COR)_(PROFILER|PROFILER_PATH(_32|_64)?|ENABLE_PROFILING)$/, effect: LOADS },
  { pattern: /^LUA_(INIT|PATH|CPATH)(_5_\d)?$/, effect: LOADS },
  { pattern: /^(PHPRC|PHP_INI_SCAN_DIR)$/, effect: LOADS },
  { pattern: /^R_(PROFILE|PROFILE_USER|ENVIRON|ENVIRON_USER|LIBS)$/, effect: LOADS },
  { pattern: /^(GOFLAGS|GOTOOLCHAIN|CARGO_HOME|RUSTC_WRAPPER|RUSTFLAGS|RUSTC|CC|CXX|LDSHARED)$/, effect: 'changes which tools and code are built and run' },
  { pattern: /^PSMODULEPATH$/, effect: LOADS },
  // package sources: an auto-installing runner (npx, uvx, ...) downloads what they name
  { pattern: /^NPM_CONFIG_[A-Z0-9_]+$/, effect: 'changes npm settings (registry, scripts run)' },
  { pattern: /^(YARN_[A-Z0-9_]*REGISTRY[A-Z0-9_]*|BUN_CONFIG_REGISTRY|PNPM_[A-Z0-9_]*REGISTRY[A-Z0-9_]*|COREPACK_NPM_REGISTRY)$/, effect: SOURCE },
  { pattern: /^UV_(INDEX|INDEX_URL|DEFAULT_INDEX|EXTRA_INDEX_URL|FIND_LINKS|PYTHON_INSTALL_MIRROR|INSTALL_DIR|TOOL_DIR|PYTHON|CONFIG_FILE)$/, effect: SOURCE },
  { pattern: /^PIP_(INDEX_URL|EXTRA_INDEX_URL|FIND_LINKS|TRUSTED_HOST|CONFIG_FILE)$/, effect: SOURCE },
  { pattern: /^PIPX_[A-Z0-9_]+$/, effect: SOURCE },
  { pattern: /^(GOPROXY|GONOSUMDB|GONOSUMCHECK|GOPRIVATE|GOINSECURE|GOSUMDB)$/, effect: SOURCE },
  { pattern: /^(DOCKER_HOST|DOCKER_CONFIG|CONTAINER_HOST)$/, effect: 'changes which Docker engine runs containers' },
  // whom downloads trust
  {
    pattern: /^(NODE_EXTRA_CA_CERTS|NODE_TLS_REJECT_UNAUTHORIZED|SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|PIP_CERT|UV_NATIVE_TLS)$/,
    effect: 'changes which servers downloads trust',
  },
  { pattern: /^(HTTPS?_PROXY|ALL_PROXY)$/, effect: 'sends downloads through another server' },
];

/** The row that `name` (any letter case) falls under, or undefined. */
export function codeEnvRow(name: string): CodeEnvRow | undefined {
  const upper = name.toUpperCase();
  return CODE_ENV.find((row) => row.pattern.test(upper));
}
