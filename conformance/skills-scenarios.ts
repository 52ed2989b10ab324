/**
 * The conformance suite's SEP-2640 client scenarios (`sep-2640-client-*`), run by
 * client.ts. The host behaviour they check: skills are listed on connection but no file
 * is read until a skill is loaded (`no-prefetch`); loading reads the skill's `SKILL.md`,
 * verifies its size, digest and frontmatter against the entry, and refuses it on any
 * mismatch — and then reads none of the skill's other files (`verify-digest`,
 * `verify-size`, `verify-frontmatter`). A refusal is the expected outcome there, so it
 * ends the scenario successfully; a skill that verifies is loaded with all its files.
 *
 * Only mcpkit's public API is used (`mcpkit/client`, `mcpkit/http`, `mcpkit/skills`).
 */

/** The scenarios this module runs. */
export const SKILLS_SCENARIOS: ReadonlySet<string> = new Set([
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
]);

/** Options of {@link runSkillsScenario}. */
export interface SkillsScenarioOptions {
  /** The wire the suite runs the scenario on (`MCP_CONFORMANCE_PROTOCOL_VERSION`); 2026-07-28 pins the stateless era. */
  protocolVersion?: string;
  /** Per-request timeout, ms. */
  timeoutMs: number;
}

/** Runs one skills scenario against `url`; rejects when a step fails unexpectedly. */
export async function runSkillsScenario(scenario: string, url: string, options: SkillsScenarioOptions): Promise<void> {
  if (!SKILLS_SCENARIOS.has(scenario)) throw new Error(`unknown skills scenario ${JSON.stringify(scenario)}`);
  const [{ Client }, { StreamableHttpClientTransport }, { SkillsClient, SkillVerificationError }] = await Promise.all([
    import('../src/client/index.js'),
    import('../src/http/index.js'),
    import('../src/extensions/skills/index.js'),
  ]);
  const client = new Client(
    { name: 'mcpkit-conformance-client', version: '0.1.0' },
    options.protocolVersion === '2026-07-28' ? { protocolVersion: '2026-07-28' } : {},
  );
  const skills = new SkillsClient(client);
  const request = { timeoutMs: options.timeoutMs };
  await client.connect(new StreamableHttpClientTransport({ url }), request);
  try {
    const entries = await skills.listSkills(request);
    process.stderr.write(`conformance client: ${scenario}: the server lists ${entries.length} skill(s): ${entries.map((e) => e.uri).join(', ')}\n`);
    // no-prefetch: nothing asks for a skill, so nothing is read
    if (scenario === 'sep-2640-client-no-prefetch') return;
    const entry = entries[0];
    if (entry === undefined) throw new Error('the server lists no skill to load');
    try {
      await skills.loadSkill(entry, request);
    } catch (err) {
      if (!(err instanceof SkillVerificationError)) throw err;
      process.stderr.write(`conformance client: ${scenario}: refused ${err.uri} (${err.reason}): ${err.message}\n`);
      return;
    }
    // the skill verified: a host goes on to the files its instructions need
    for (const file of entry.resources === 'dynamic' ? [] : entry.resources) if (file.uri !== entry.uri) await skills.readFile(entry, file.uri, request);
  } finally {
    await client.close();
  }
}
