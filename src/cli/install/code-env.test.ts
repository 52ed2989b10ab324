// The table of environment variables that change which code runs (issue 35 §1): one test per
// row, each with names in several letter cases (Windows names are case-insensitive); such a
// variable is shown in full and flagged, never masked, even when its name contains PASS/TOKEN.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CODE_ENV, codeEnvRow } from './code-env.js';
import { describeVariable } from './display.js';

/** Examples per row, in the table's order; every row must have some. */
const EXAMPLES: readonly (readonly string[])[] = [
  ['PATH', 'Path', 'path'],
  ['PATHEXT', 'PathExt'],
  ['COMSPEC', 'ComSpec'],
  ['LD_PRELOAD', 'LD_LIBRARY_PATH', 'ld_audit'],
  ['DYLD_INSERT_LIBRARIES', 'dyld_library_path'],
  ['GCONV_PATH', 'glibc_tunables', 'OPENSSL_CONF', 'OPENSSL_ENGINES', 'OPENSSL_MODULES', 'GIO_EXTRA_MODULES', 'QT_PLUGIN_PATH'],
  ['HOME', 'UserProfile', 'APPDATA', 'XDG_CONFIG_HOME'],
  ['GIT_ASKPASS', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'git_askpass', 'Ssh_AskPass'],
  ['SSH_ASKPASS_REQUIRE'],
  ['EDITOR', 'VISUAL', 'PAGER', 'BROWSER', 'SHELL'],
  ['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_EDITOR', 'GIT_PAGER', 'GIT_EXTERNAL_DIFF', 'GIT_PROXY_COMMAND', 'git_sequence_editor'],
  ['SUDO_EDITOR', 'svn_editor', 'HGEDITOR', 'FCEDIT', 'MANPAGER', 'LESSOPEN', 'LESSCLOSE', 'TERMINAL'],
  ['GIT_EXEC_PATH', 'GIT_TEMPLATE_DIR', 'GIT_DIR', 'GIT_WORK_TREE'],
  ['GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG'],
  ['BASH_ENV', 'ENV', 'ZDOTDIR', 'PROMPT_COMMAND', 'PS4', 'SHELLOPTS', 'BASHOPTS', 'IFS'],
  ['BASH_FUNC_ls%%'],
  ['NODE_OPTIONS', 'node_options', 'Node_Options', 'NODE_PATH', 'ELECTRON_RUN_AS_NODE'],
  ['PYTHONSTARTUP', 'PYTHONPATH', 'PYTHONHOME', 'pythonstartup', 'PYTHONUSERBASE', 'PYTHONBREAKPOINT', 'PYTHONWARNINGS'],
  ['PERL5OPT', 'PERLLIB', 'PERL5LIB', 'PERL5DB'],
  ['RUBYOPT', 'RUBYLIB', 'GEM_HOME', 'BUNDLE_GEMFILE'],
  ['JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'CLASSPATH', 'JAVA_OPTS', 'MAVEN_OPTS', 'GRADLE_OPTS'],
  ['DOTNET_STARTUP_HOOKS', 'dotnet_startup_hooks', 'DOTNET_ADDITIONAL_DEPS'],
  ['CORECLR_PROFILER', 'COR_PROFILER_PATH', 'CORECLR_ENABLE_PROFILING', 'COR_PROFILER_PATH_64'],
  ['LUA_INIT', 'LUA_INIT_5_4', 'LUA_PATH', 'LUA_CPATH'],
  ['PHPRC', 'PHP_INI_SCAN_DIR'],
  ['R_PROFILE_USER', 'R_LIBS'],
  ['GOFLAGS', 'RUSTC_WRAPPER', 'CARGO_HOME', 'CC', 'CXX', 'LDSHARED'],
  ['PSModulePath'],
  ['NPM_CONFIG_REGISTRY', 'npm_config_registry', 'NPM_CONFIG_SCRIPT_SHELL', 'npm_config_node_options'],
  ['YARN_NPM_REGISTRY_SERVER', 'YARN_REGISTRY', 'BUN_CONFIG_REGISTRY', 'COREPACK_NPM_REGISTRY'],
  ['UV_INDEX_URL', 'uv_index_url', 'UV_DEFAULT_INDEX', 'UV_EXTRA_INDEX_URL', 'UV_INDEX', 'UV_FIND_LINKS', 'UV_PYTHON', 'UV_CONFIG_FILE'],
  ['PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'pip_find_links', 'PIP_TRUSTED_HOST'],
  ['PIPX_HOME', 'PIPX_DEFAULT_PYTHON'],
  ['GOPROXY', 'GONOSUMDB', 'GOSUMDB', 'GOINSECURE'],
  ['DOCKER_HOST', 'DOCKER_CONFIG'],
  ['NODE_EXTRA_CA_CERTS', 'NODE_TLS_REJECT_UNAUTHORIZED', 'SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE'],
  ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'ALL_PROXY'],
];

test('every row of the table has examples here (a new row needs a test)', () => {
  assert.equal(EXAMPLES.length, CODE_ENV.length);
});

for (const [index, row] of CODE_ENV.entries()) {
  test(`row ${index} ${row.pattern.source}: every example matches this row, in any letter case, shown in full and flagged`, () => {
    for (const name of EXAMPLES[index]!) {
      assert.equal(codeEnvRow(name), row, `${name} falls under row ${index}`);
      const value = '/tmp/evil-$PASS-token';
      const shown = describeVariable(name, value);
      assert.ok(shown.includes("'/tmp/evil-$PASS-token'"), `${name}: the value is shown, not masked: ${shown}`);
      assert.ok(shown.endsWith(`<- changes which code runs: ${row.effect}`), shown);
    }
  });
}

test('ASKPASS variables name a program: shown, not masked as a password (issue 35)', () => {
  assert.equal(describeVariable('GIT_ASKPASS', '/tmp/x/steal.sh'), 'GIT_ASKPASS=/tmp/x/steal.sh   <- changes which code runs: names a program that runs');
  assert.equal(describeVariable('sudo_askpass', '/tmp/x/root.sh'), 'sudo_askpass=/tmp/x/root.sh   <- changes which code runs: names a program that runs');
});

test('ordinary and secret variables are not flagged: masked when secret-looking', () => {
  for (const name of ['DEBUG', 'HOME_DIR', 'EDITOR_THEME', 'CCACHE', 'HOMEPAGE', 'MY_PATH_PREFIX', 'PATHS', 'NODE_ENV', 'LOG_LEVEL'])
    assert.equal(codeEnvRow(name), undefined, name);
  assert.match(describeVariable('DB_PASSWORD', 'hunter2'), /\*{8} \(secret/);
  assert.match(describeVariable('API_TOKEN', 'tok'), /\*{8} \(secret/);
});
