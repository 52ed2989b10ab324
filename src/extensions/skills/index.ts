/**
 * `mcpkit/skills`: the skills extension (SEP-2640, `io.modelcontextprotocol/skills`) on
 * both sides — {@link SkillsServer} publishes skills, {@link SkillsClient} lists, gets and
 * loads them with verification. Runtime-neutral (Web Crypto for the digests); reading
 * skills from a folder is `mcpkit/skills/node`.
 */

export {
  type LoadedSkill,
  type SkillFile,
  SkillsClient,
  type SkillsClientOptions,
  SkillVerificationError,
  type SkillVerificationReason,
  skillEntryProblem,
} from './client.js';
export { DIGEST_PATTERN, sha256Digest } from './digest.js';
export { FrontmatterError, type FrontmatterValue, MAX_FRONTMATTER_LENGTH, parseFrontmatter, renderFrontmatter, renderSkillMd } from './frontmatter.js';
export { type RegisteredSkill, type SkillDefinition, SkillsServer, type SkillsServerOptions } from './server.js';
export {
  DIRECTORY_MIME_TYPE,
  type DirectoryChild,
  declaresSkills,
  type GetSkillResult,
  type ListSkillsResult,
  type ReadDirectoryResult,
  SKILL_LIMITS,
  SKILL_MD,
  SKILL_MD_MIME_TYPE,
  SKILL_NAME_PATTERN,
  SKILLS_EXTENSION_ID,
  type SkillEntry,
  type SkillFrontmatter,
  type SkillResourceEntry,
  type SkillsCapability,
  SkillsMethod,
  skillNameOfUri,
  skillNameProblem,
  skillsProtocolExtension,
} from './wire.js';
