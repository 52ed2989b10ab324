// A small semver range check for the ranges this package declares (peer dependencies):
// comparators `>=`, `>`, `<=`, `<`, `=` or a bare version, joined by spaces (all must hold),
// alternatives joined by `||`, `^`/`~` shorthands and x-ranges (`20.x`, or a bare `20`, as
// npm reads them). In comparators, missing minor/patch parts are 0.
// A prerelease version sorts before its release and satisfies a range only through a
// comparator that names the same major.minor.patch with a prerelease (as npm does).

/** Parses "1.2.3", "1.2", "1" or "1.2.3-rc.1"; throws on anything else. */
export function parseVersion(text) {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!m) throw new Error(`not a version: ${JSON.stringify(text)}`);
  return { major: Number(m[1]), minor: Number(m[2] ?? 0), patch: Number(m[3] ?? 0), pre: m[4] ?? '' };
}

/** Negative, zero or positive as `a` sorts before, with or after `b`. */
export function compareVersions(a, b) {
  const x = typeof a === 'string' ? parseVersion(a) : a;
  const y = typeof b === 'string' ? parseVersion(b) : b;
  for (const key of ['major', 'minor', 'patch']) if (x[key] !== y[key]) return x[key] - y[key];
  if (x.pre === y.pre) return 0;
  if (x.pre === '') return 1;
  if (y.pre === '') return -1;
  return x.pre < y.pre ? -1 : 1;
}

function comparators(token) {
  if (token === '*' || token === '') return [];
  const caret = /^\^(.+)$/.exec(token);
  if (caret) {
    const v = parseVersion(caret[1]);
    const upper = v.major > 0 ? `${v.major + 1}.0.0` : v.minor > 0 ? `0.${v.minor + 1}.0` : `0.0.${v.patch + 1}`;
    return [
      ['>=', v],
      ['<', parseVersion(upper)],
    ];
  }
  const tilde = /^~(.+)$/.exec(token);
  if (tilde) {
    const v = parseVersion(tilde[1]);
    return [
      ['>=', v],
      ['<', parseVersion(`${v.major}.${v.minor + 1}.0`)],
    ];
  }
  // a bare partial version or an x-range: `20`, `20.x`, `1.2.*` cover every version they leave open
  const partial = /^=?v?(\d+)(?:\.(\d+|x|\*))?(?:\.(x|\*))?$/i.exec(token);
  if (partial && !/^=?v?\d+\.\d+\.\d+$/.test(token)) {
    const major = Number(partial[1]);
    const minor = partial[2] === undefined || /^(x|\*)$/i.test(partial[2]) ? undefined : Number(partial[2]);
    const upper = minor === undefined ? `${major + 1}.0.0` : `${major}.${minor + 1}.0`;
    return [
      ['>=', parseVersion(`${major}.${minor ?? 0}.0`)],
      ['<', parseVersion(upper)],
    ];
  }
  const m = /^(>=|<=|>|<|=)?\s*(.+)$/.exec(token);
  return [[m[1] ?? '=', parseVersion(m[2])]];
}

const HOLDS = { '>=': (c) => c >= 0, '>': (c) => c > 0, '<=': (c) => c <= 0, '<': (c) => c < 0, '=': (c) => c === 0 };

/** Whether `version` satisfies `range`. Throws on a range or version it cannot parse. */
export function satisfies(version, range) {
  const v = parseVersion(version);
  return range.split('||').some((alternative) => {
    const list = alternative
      .trim()
      .replace(/(>=|<=|>|<|=)\s+/g, '$1')
      .split(/\s+/)
      .flatMap(comparators);
    if (v.pre && !list.some(([, c]) => c.pre && c.major === v.major && c.minor === v.minor && c.patch === v.patch)) return false;
    return list.every(([op, c]) => HOLDS[op](compareVersions(v, c)));
  });
}

/** The lowest and highest of `versions` that satisfy `range` (undefined when none does). */
export function rangeEnds(versions, range) {
  const inside = versions.filter((v) => satisfies(v, range)).sort(compareVersions);
  return { lowest: inside[0], highest: inside[inside.length - 1] };
}
