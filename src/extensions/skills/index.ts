/**
 * `mcpkit/skills`: the skills extension (SEP-2640, `io.modelcontextprotocol/skills`) on
 * both sides — {@link SkillsServer} publishes skills, {@link SkillsClient} lists, gets and
 * loads them with verification. Runtime-neutral (Web Crypto for the digests); reading
 * skills from a folder is `mcpkit/skills/node`.
 */
export { SkillsServer, type SkillDefinition, type SkillsServerOptions, type RegisteredSkill } from './server.js';
export { SkillsClient, SkillVerificationError, skillEntryProblem, type SkillsClientOptions, type SkillFile, type LoadedSkill, type SkillVerificationReason } from './client.js';
export {
  SKILLS_EXTENSION_ID,
  SkillsMethod,
  SKILL_MD,
  SKILL_MD_MIME_TYPE,
  SKILL_LIMITS,
  SKILL_NAME_PATTERN,
  DIRECTORY_MIME_TYPE,
  skillNameProblem,
  skillNameOfUri,
  declaresSkills,
  skillsProtocolExtension,
  type SkillEntry,
  type SkillFrontmatter,
  type SkillResourceEntry,
  type ListSkillsResult,
  type GetSkillResult,
  type SkillsCapability,
  type DirectoryChild,
  type ReadDirectoryResult,
} from './wire.js';
export { parseFrontmatter, renderFrontmatter, renderSkillMd, FrontmatterError, MAX_FRONTMATTER_LENGTH, type FrontmatterValue } from './frontmatter.js';
export { sha256Digest, DIGEST_PATTERN } from './digest.js';
